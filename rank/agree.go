package rank

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/ocbench/ocbench/bench"
)

// Term is one named value that every rank of a job must hold alike: the
// build, a flag ("--nodes" = "8"), a run's spec.
type Term struct{ Name, Value string }

// Agreement is what one rank brings to Agree: its terms, in an order every
// rank shares, and its refusal of its own input, if it found it bad (a
// refusing rank brings the terms it knows, e.g. the build and the flags
// parsed, and none of the runs it could not build).
type Agreement struct {
	Refusal string `json:",omitempty"`
	Terms   []Term
}

// Digest returns the SHA-256 of a's terms.
func (a Agreement) Digest() [32]byte {
	h := sha256.New()
	for _, t := range a.Terms {
		// Lengths first: no two lists of terms encode alike.
		var n [16]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(t.Name)))
		binary.LittleEndian.PutUint64(n[8:], uint64(len(t.Value)))
		h.Write(n[:])
		h.Write([]byte(t.Name))
		h.Write([]byte(t.Value))
	}
	var d [32]byte
	h.Sum(d[:0])
	return d
}

// ShortDigest is the first 4 bytes of a digest, as frames carry it.
func ShortDigest(d [32]byte) uint32 { return binary.LittleEndian.Uint32(d[:]) }

// AgreementError ends a job whose ranks disagree or refused their input: on
// rank 0 it says what (the first term that differs, or the first refusal);
// on the other ranks, that rank 0 ended the job (rank 0 prints).
type AgreementError struct {
	Msg string
	// Refused: a rank refused its input (the ranks agreed on every term
	// they share); otherwise they disagreed.
	Refused bool
}

func (e *AgreementError) Error() string { return e.Msg }

// Verdicts of Agree, as rank 0 gives them to every rank.
const (
	agreed    = 0
	disagreed = 1
	refused   = 2
)

// Agree makes the ranks of comm agree before anything runs: every rank
// calls it once, with its own agreement, whether its input was good or not,
// so that no rank waits for one that left. The ranks first exchange the
// first 8 bytes of their digests and whether they refused (one sum of 2P
// integers, each rank filling its own two); if every digest is rank 0's and
// none refused, they agree. Otherwise rank 0 gathers every rank's terms and
// compares them with its own: the first term that differs on some rank
// ends the job ("ranks disagree: rank 2 has --nodes 3, rank 0 has --nodes
// 8"); so does a refusal, when the ranks agree on every term they share
// (the lowest refusing rank's, prefixed with its rank unless it is rank
// 0). Every rank returns the same verdict: the short digest of the terms
// (ShortDigest), the same on every rank, or an *AgreementError.
func Agree(comm Comm, mine Agreement) (uint32, error) {
	digest := mine.Digest()
	p, me := comm.Size(), comm.Rank()
	v := make([]int64, 2*p)
	v[2*me] = int64(binary.LittleEndian.Uint64(digest[:]))
	if mine.Refusal != "" {
		v[2*me+1] = 1
	}
	all, err := comm.SumInt64(v)
	if err != nil {
		return 0, fmt.Errorf("rank: exchanging the agreement's digests: %w", err)
	}
	alike := true
	for r := range p {
		alike = alike && all[2*r] == all[0] && all[2*r+1] == 0
	}
	if alike {
		return ShortDigest(digest), nil
	}
	// Every rank knows that they differ; rank 0 finds how.
	buf, err := json.Marshal(mine)
	if err != nil {
		return 0, fmt.Errorf("rank: encoding the agreement: %w", err)
	}
	parts, err := comm.Gather(buf)
	if err != nil {
		return 0, fmt.Errorf("rank: gathering the agreement: %w", err)
	}
	verdict, msg := agreed, ""
	if me == 0 {
		verdict, msg = judge(parts)
	}
	verdicts, err := comm.SumInt64([]int64{int64(verdict)})
	if err != nil {
		return 0, fmt.Errorf("rank: giving the agreement's verdict: %w", err)
	}
	switch verdicts[0] {
	case agreed: // the digests differ, the terms as encoded do not (not UTF-8?)
		return 0, &AgreementError{Msg: "ranks disagree: their digests differ, though no term as rank 0 reads it (a value that is not UTF-8?)"}
	case disagreed, refused:
		if me != 0 {
			msg = "rank 0 ended the job: the ranks disagree or refused their input"
			if mine.Refusal != "" {
				msg = mine.Refusal
			}
		}
		return 0, &AgreementError{Msg: msg, Refused: verdicts[0] == refused}
	}
	return 0, fmt.Errorf("rank: the agreement's verdict is %d", verdicts[0])
}

// judge compares every rank's agreement (encoded, in rank order) with rank
// 0's: the first term that differs, over the terms every rank brought, then
// the lowest refusal, then the terms that only some ranks brought.
func judge(parts [][]byte) (int, string) {
	as := make([]Agreement, len(parts))
	for r, p := range parts {
		if err := json.Unmarshal(p, &as[r]); err != nil {
			return disagreed, fmt.Sprintf("ranks disagree: rank %d sent an agreement rank 0 cannot read (%v)", r, err)
		}
	}
	common, most := len(as[0].Terms), len(as[0].Terms)
	for _, a := range as {
		common, most = min(common, len(a.Terms)), max(most, len(a.Terms))
	}
	if msg := firstDifference(as, 0, common); msg != "" {
		return disagreed, msg
	}
	for r, a := range as {
		if a.Refusal == "" {
			continue
		}
		if r == 0 {
			return refused, a.Refusal
		}
		return refused, fmt.Sprintf("rank %d: %s", r, a.Refusal)
	}
	if msg := firstDifference(as, common, most); msg != "" {
		return disagreed, msg
	}
	return agreed, ""
}

// firstDifference describes the first term in [from, to) on which a rank
// differs from rank 0, or returns "".
func firstDifference(as []Agreement, from, to int) string {
	term := func(a Agreement, k int) (Term, bool) {
		if k < len(a.Terms) {
			return a.Terms[k], true
		}
		return Term{}, false
	}
	has := func(r int, t Term, ok bool) string {
		if !ok {
			return fmt.Sprintf("rank %d has nothing there", r)
		}
		return fmt.Sprintf("rank %d has %s", r, show(t))
	}
	for k := from; k < to; k++ {
		t0, ok0 := term(as[0], k)
		for r := 1; r < len(as); r++ {
			if t, ok := term(as[r], k); t != t0 || ok != ok0 {
				return fmt.Sprintf("ranks disagree: %s, %s", has(r, t, ok), has(0, t0, ok0))
			}
		}
	}
	return ""
}

// show writes a term as its name and value, the value cut to a line's
// worth.
func show(t Term) string {
	v := t.Value
	if len(v) > 200 {
		v = v[:200] + "…"
	}
	if v == "" {
		v = `""`
	}
	return t.Name + " " + strings.ReplaceAll(v, "\n", " ")
}

// SpecTerms returns the terms of the runs of a job: every field of each
// spec, named "run k's Field" (k from 1; "run 1's Faults.Crashes" for a
// field of a field), with a trace as whether there is one (rank 0 writes
// it, the other ranks send it their events) and the progress callback,
// which only rank 0 may have, left out.
func SpecTerms(specs []bench.Spec) []Term {
	var out []Term
	for k, s := range specs {
		prefix := fmt.Sprintf("run %d's ", k+1)
		out = append(out, Term{prefix + "Trace", fmt.Sprint(s.Trace != nil)})
		s.Trace, s.Progress = nil, nil
		out = fieldTerms(out, prefix, reflect.ValueOf(s))
	}
	return out
}

// fieldTerms appends a term for every field of the struct v, recursively,
// except functions and interfaces.
func fieldTerms(out []Term, prefix string, v reflect.Value) []Term {
	for i := range v.NumField() {
		f, ft := v.Field(i), v.Type().Field(i)
		switch {
		case !ft.IsExported(), f.Kind() == reflect.Func, f.Kind() == reflect.Interface:
		case f.Kind() == reflect.Struct:
			out = fieldTerms(out, prefix+ft.Name+".", f)
		default:
			out = append(out, Term{prefix + ft.Name, fmt.Sprint(f.Interface())})
		}
	}
	return out
}

// agreeJob makes every rank agree on a job (Agree): the runtime's terms,
// then the specs' (SpecTerms), with bad, this rank's refusal of its input,
// if any. It returns the job's digest, or bad, or a ValidationError when
// the ranks disagree or another refused: every rank returns, none is left
// waiting.
func agreeJob(comm Comm, terms []Term, specs []bench.Spec, bad error) (uint32, error) {
	me := Agreement{Terms: append(terms, SpecTerms(specs)...)}
	if bad != nil {
		me.Refusal = bad.Error()
	}
	digest, err := Agree(comm, me)
	switch {
	case bad != nil:
		return 0, bad
	case err != nil:
		var ae *AgreementError
		if errors.As(err, &ae) {
			return 0, &ValidationError{err}
		}
		return 0, err
	}
	return digest, nil
}
