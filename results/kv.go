package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// KVFormat is the version of the key: value summary (WriteKV); its first
// line says it ("ocbench_kv: 1").
const KVFormat = 1

// KVMaxList is the longest list of numbers or strings written as one
// comma-separated value; a longer one (the per-failure samples) is
// written as its length, under the key + ".count".
const KVMaxList = 64

// kvIdentity are the fields of a record written when the runs are not
// valid: what ran and what broke, no figure.
var kvIdentity = []string{"algorithm", "nodes", "ranks", "runtime", "seed", "seeds", "workload",
	"safety_violations", "liveness_violations", "violation"}

// KVPrefix is the prefix of a record's keys in WriteKV's summary:
// "<algorithm>.N<nodes>." (opencube.N32.).
func KVPrefix(r *Run) string { return fmt.Sprintf("%s.N%d.", r.Algorithm, r.Nodes) }

// WriteKV writes the runs as `key: value` lines, as Graph500 prints its
// results: a few lines about the command (head, each "key: value"), then
// every field of every record under its KVPrefix, nested objects' keys
// joined with dots (opencube.N32.overhead_per_failure.mean: 7.53), then
// the verdict (violations:, verdict: VALID or INVALID, reason: why not).
// The runs of an invalid command get their identifying fields only
// (kvIdentity): no figure of an invalid run is written as a result.
func WriteKV(w io.Writer, head [][2]string, runs []*Run, v Validation) error {
	bw := bufio.NewWriter(w)
	kv := func(k, val string) { fmt.Fprintf(bw, "%s: %s\n", k, flat(val)) }
	kv("ocbench_kv", fmt.Sprint(KVFormat))
	for _, h := range head {
		kv(h[0], h[1])
	}
	kv("configurations", fmt.Sprint(v.Configurations))
	kv("runs", fmt.Sprint(v.Runs))
	var records []string
	for _, r := range runs {
		records = append(records, strings.TrimSuffix(KVPrefix(r), "."))
	}
	kv("records", strings.Join(records, " "))
	for _, r := range runs {
		b, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("writing key: value lines: %w", err)
		}
		var lines [][2]string
		if err := flatten(json.NewDecoder(bytes.NewReader(b)), "", &lines); err != nil {
			return fmt.Errorf("writing key: value lines: %w", err)
		}
		for _, l := range lines {
			if !v.Valid && !slices.Contains(kvIdentity, l[0]) {
				continue
			}
			kv(KVPrefix(r)+l[0], l[1])
		}
	}
	kv("violations", fmt.Sprint(v.Violations))
	if v.Valid {
		kv("verdict", "VALID")
	} else {
		kv("verdict", "INVALID")
		kv("reason", v.Reason)
	}
	return bw.Flush()
}

// flatten reads one JSON value from dec and appends its leaves to out as
// (key, value), key being prefix and the object keys on the way joined by
// dots, in the order of the JSON. A list of scalars is one value, its
// items joined by commas (KVMaxList at most: longer, its length under
// key.count); a list of objects gives each its index as a key. Nulls are
// left out.
func flatten(dec *json.Decoder, prefix string, out *[][2]string) error {
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return err
	}
	return flattenRaw(v, prefix, out)
}

func flattenRaw(v json.RawMessage, key string, out *[][2]string) error {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	join := func(k string) string {
		if key == "" {
			return k
		}
		return key + "." + k
	}
	switch v[0] {
	case '{':
		dec := json.NewDecoder(bytes.NewReader(v))
		if _, err := dec.Token(); err != nil {
			return err
		}
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return err
			}
			var child json.RawMessage
			if err := dec.Decode(&child); err != nil {
				return err
			}
			if err := flattenRaw(child, join(t.(string)), out); err != nil {
				return err
			}
		}
		return nil
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(v, &items); err != nil {
			return err
		}
		scalars := !slices.ContainsFunc(items, func(x json.RawMessage) bool {
			x = bytes.TrimSpace(x)
			return len(x) > 0 && (x[0] == '{' || x[0] == '[')
		})
		if !scalars {
			for i, x := range items {
				if err := flattenRaw(x, join(fmt.Sprint(i)), out); err != nil {
					return err
				}
			}
			return nil
		}
		if len(items) > KVMaxList {
			*out = append(*out, [2]string{key + ".count", fmt.Sprint(len(items))})
			return nil
		}
		s := make([]string, len(items))
		for i, x := range items {
			s[i] = scalar(x)
		}
		*out = append(*out, [2]string{key, strings.Join(s, ",")})
		return nil
	}
	*out = append(*out, [2]string{key, scalar(v)})
	return nil
}

// scalar is a JSON scalar as text: a string without its quotes, a number
// or a boolean as JSON writes it.
func scalar(v json.RawMessage) string {
	var s string
	if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}
