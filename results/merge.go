package results

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// Merge combines runs of the same configuration over different seeds into
// one record, field by field, by the rule in each field's `merge` struct tag
// (see package doc):
//
//   - same: run 0's value, the configuration (Algorithm, Nodes, δ, …);
//   - sum: the sum over the runs, in run order: counters (integers,
//     float64), counts by name (map[string] of an integer; the merged
//     map is never nil) and counts by index (slices and arrays of those,
//     or of such slices, added element by element);
//   - max, min: the largest or smallest over the runs, of numbers or of
//     pointers to numbers (nil: absent; nil if absent in every run);
//   - first: the first non-zero value over the runs (Violation, …);
//   - all: a bool true in every run; any: a bool true in some run;
//   - append: slices concatenated in run order (per-failure samples, …);
//   - custom: computed by hand below (pooled summaries, estimates over
//     the pooled samples, weighted means, …).
//
// Adding a metric to Run is adding one field with its tag: every rule but
// custom is applied by reflection, and an unknown rule, a missing tag or a
// rule that does not fit the field's type panics when the package is
// initialized (TestMergeRules checks every rule on every field). The
// Stabilization of self-stabilizing runs is merged the same way.
//
// A single run is returned as it is.
func Merge(runs []*Run) *Run {
	if len(runs) == 1 {
		return runs[0]
	}
	var m Run
	runPlan.merge(reflect.ValueOf(&m).Elem(), values(runs))

	// custom fields
	m.Seed = runs[0].Seed // with Seeds, which lists them all
	var diffs, rec []float64
	var phases, hops float64
	m.FalseSuspicions = 0
	for _, r := range runs {
		m.Seeds = append(m.Seeds, r.Seed)
		if m.FalseSuspicions >= 0 && r.FalseSuspicions >= 0 {
			m.FalseSuspicions += r.FalseSuspicions
		} else {
			m.FalseSuspicions = -1 // not judged in some run (MPI with crashes)
		}
		phases += r.SearchPhasesMean * float64(r.SearchesStarted)
		hops += r.HopsPerMessage * float64(r.MessagesTotal)
		// MPI: seeds that ran at once in one job share its CPU time,
		// which only the first record carries (rank.RunSeeds).
		for k, c := range r.CPUSecondsPerRank {
			if k >= len(m.CPUSecondsPerRank) {
				m.CPUSecondsPerRank = append(m.CPUSecondsPerRank, 0)
			}
			m.CPUSecondsPerRank[k] += c
		}
		// The first over the seeds; the descriptions name no seed: say
		// which (the merged Seed is run 0's).
		if m.FaultModelBroken == "" && r.FaultModelBroken != "" {
			m.FaultModelBroken = fmt.Sprintf("seed %d: %s", r.Seed, r.FaultModelBroken)
		}
		if m.FirstFalseSuspicion == "" && r.FirstFalseSuspicion != "" {
			m.FirstFalseSuspicion = fmt.Sprintf("seed %d: %s", r.Seed, r.FirstFalseSuspicion)
		}
		if r.OverheadDifferential.N > 0 {
			diffs = append(diffs, r.OverheadDifferential.Mean)
		}
		if r.RecoveryDelta.Count > 0 {
			rec = append(rec, r.RecoveryDelta.Mean)
		}
	}
	if m.MessagesTotal > 0 {
		m.HopsPerMessage = hops / float64(m.MessagesTotal)
	}
	if m.SearchesStarted > 0 {
		m.SearchPhasesMean = phases / float64(m.SearchesStarted)
	}
	m.SetDetectionPerRequest()
	m.MsgsPerRequest = pool(runs, func(r *Run) Summary { return r.MsgsPerRequest })
	m.WaitDelta = pool(runs, func(r *Run) Summary { return r.WaitDelta })
	m.ResponseDelta = pool(runs, func(r *Run) Summary { return r.ResponseDelta })
	m.SyncDelayDelta = pool(runs, func(r *Run) Summary { return r.SyncDelayDelta })
	m.OverheadByVictimPower, m.OverheadStratified = ByPower(m.OverheadSamples, m.VictimPowers, m.Nodes)
	m.OverheadPerFailure = Estimated(m.OverheadSamples)
	m.OverheadDifferential = Estimated(diffs)
	m.RecoveryDelta = Summary{Count: len(rec), Mean: Estimated(rec).Mean}
	if len(m.RecoverySamples) > 0 { // pooled over the crashes of every seed
		m.RecoveryDelta = Summarize(m.RecoverySamples)
	}
	if m.EntriesStable > 0 {
		m.MsgsPerEntry = float64(m.MessagesStable) / float64(m.EntriesStable)
	}
	m.Stabilization = mergeStabilization(runs)
	return &m
}

// AddCounts merges src into dst field by field by the merge tags of T, a
// counts type (a runtime's counters: sim.Counts, sim.Stats, …), by the
// rules of Merge: each field of dst becomes the merge of dst's and src's,
// in that order. Fields tagged custom are left for the caller; an embedded
// struct without a tag is merged by its own tags. It panics if a field of
// T has no valid rule (TestCountsRules checks the counts types).
func AddCounts[T any](dst, src *T) {
	d := reflect.ValueOf(dst).Elem()
	planOf(d.Type()).merge(d, []reflect.Value{d, reflect.ValueOf(src).Elem()})
}

// SumCounts returns the merge of vs (at least one) by the merge tags of T,
// as AddCounts; custom fields are zero.
func SumCounts[T any](vs []*T) *T {
	var m T
	d := reflect.ValueOf(&m).Elem()
	planOf(d.Type()).merge(d, values(vs))
	return &m
}

// plans caches the plans of the counts types (reflect.Type → plan).
var plans sync.Map

// planOf returns the plan of struct type t, made once.
func planOf(t reflect.Type) plan {
	if p, ok := plans.Load(t); ok {
		return p.(plan)
	}
	p, _ := plans.LoadOrStore(t, mustPlan(t))
	return p.(plan)
}

// pool merges one summary of every run: the mean is pooled exactly (weighed
// by each run's count); the median, 99th percentile and maximum of the
// merged record are the largest over the runs (a conservative choice).
func pool(runs []*Run, of func(*Run) Summary) Summary {
	var p Summary
	for _, r := range runs {
		p.Count += of(r).Count
	}
	if p.Count == 0 {
		return p
	}
	for _, r := range runs {
		s := of(r)
		p.Mean += float64(s.Count) / float64(p.Count) * s.Mean
		p.Median = max(p.Median, s.Median)
		p.P99 = max(p.P99, s.P99)
		p.Max = max(p.Max, s.Max)
	}
	return p
}

// values returns the structs that ps point to.
func values[T any](ps []*T) []reflect.Value {
	vs := make([]reflect.Value, len(ps))
	for i, p := range ps {
		vs[i] = reflect.ValueOf(p).Elem()
	}
	return vs
}

// The plans of the merged structs, checked when the package is initialized.
var (
	runPlan  = mustPlan(reflect.TypeFor[Run]())
	stabPlan = mustPlan(reflect.TypeFor[Stabilization]())
)

// A plan merges the fields of a struct type by their merge tags.
type plan []fieldMerge

type fieldMerge struct {
	index int
	merge func(dst reflect.Value, srcs []reflect.Value)
}

// merge sets every field of dst whose rule is not custom from the same
// field of srcs (structs of dst's type; at least one).
func (p plan) merge(dst reflect.Value, srcs []reflect.Value) {
	fs := make([]reflect.Value, len(srcs))
	for _, f := range p {
		for i, s := range srcs {
			fs[i] = s.Field(f.index)
		}
		f.merge(dst.Field(f.index), fs)
	}
}

// mustPlan returns the plan of struct type t, and panics if a field has no
// merge tag, an unknown rule, or a rule that does not apply to its type.
// An embedded struct without a merge tag (a group of Run's fields) is
// merged field by field by its own tags.
func mustPlan(t reflect.Type) plan {
	var p plan
	for i := range t.NumField() {
		f := t.Field(i)
		rule, ok := f.Tag.Lookup("merge")
		if !ok && f.Anonymous && f.Type.Kind() == reflect.Struct {
			p = append(p, fieldMerge{i, mustPlan(f.Type).merge})
			continue
		}
		if !ok {
			panic(fmt.Sprintf("results: %s.%s has no merge tag", t.Name(), f.Name))
		}
		if rule == "custom" {
			continue
		}
		r, ok := mergeRules[rule]
		if !ok {
			panic(fmt.Sprintf("results: %s.%s: unknown merge rule %q (known: %s)", t.Name(), f.Name, rule, ruleNames()))
		}
		m := r(f.Type)
		if m == nil && rule == "sum" {
			m = sumElements(f.Type)
		}
		if m == nil {
			panic(fmt.Sprintf("results: %s.%s: merge rule %q does not apply to %s", t.Name(), f.Name, rule, f.Type))
		}
		p = append(p, fieldMerge{i, m})
	}
	return p
}

// mergeRules are the rules but custom: each returns the merge of a field
// of type t, or nil if the rule does not apply to t.
var mergeRules = map[string]func(t reflect.Type) func(dst reflect.Value, srcs []reflect.Value){
	"same": func(reflect.Type) func(reflect.Value, []reflect.Value) {
		return func(dst reflect.Value, srcs []reflect.Value) { dst.Set(srcs[0]) }
	},
	"sum": func(t reflect.Type) func(reflect.Value, []reflect.Value) {
		switch {
		case isInt(t):
			return func(dst reflect.Value, srcs []reflect.Value) {
				var s int64
				for _, v := range srcs {
					s += v.Int()
				}
				dst.SetInt(s)
			}
		case isUint(t):
			return func(dst reflect.Value, srcs []reflect.Value) {
				var s uint64
				for _, v := range srcs {
					s += v.Uint()
				}
				dst.SetUint(s)
			}
		case t.Kind() == reflect.Float64:
			return func(dst reflect.Value, srcs []reflect.Value) {
				var s float64
				for _, v := range srcs {
					s += v.Float()
				}
				dst.SetFloat(s)
			}
		case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String && isInt(t.Elem()):
			return func(dst reflect.Value, srcs []reflect.Value) {
				sum := map[string]int64{}
				for _, v := range srcs {
					for it := v.MapRange(); it.Next(); {
						sum[it.Key().String()] += it.Value().Int()
					}
				}
				m := reflect.MakeMapWithSize(t, len(sum))
				for k, c := range sum {
					m.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), reflect.ValueOf(c).Convert(t.Elem()))
				}
				dst.Set(m)
			}
		}
		return nil
	},
	"max": func(t reflect.Type) func(reflect.Value, []reflect.Value) { return extremum(t, 1) },
	"min": func(t reflect.Type) func(reflect.Value, []reflect.Value) { return extremum(t, -1) },
	"first": func(reflect.Type) func(reflect.Value, []reflect.Value) {
		return func(dst reflect.Value, srcs []reflect.Value) {
			for _, v := range srcs {
				if !v.IsZero() {
					dst.Set(v)
					return
				}
			}
		}
	},
	"any": func(t reflect.Type) func(reflect.Value, []reflect.Value) {
		if t.Kind() != reflect.Bool {
			return nil
		}
		return func(dst reflect.Value, srcs []reflect.Value) {
			some := false
			for _, v := range srcs {
				some = some || v.Bool()
			}
			dst.SetBool(some)
		}
	},
	"all": func(t reflect.Type) func(reflect.Value, []reflect.Value) {
		if t.Kind() != reflect.Bool {
			return nil
		}
		return func(dst reflect.Value, srcs []reflect.Value) {
			all := true
			for _, v := range srcs {
				all = all && v.Bool()
			}
			dst.SetBool(all)
		}
	},
	"append": func(t reflect.Type) func(reflect.Value, []reflect.Value) {
		if t.Kind() != reflect.Slice {
			return nil
		}
		return func(dst reflect.Value, srcs []reflect.Value) {
			s := reflect.Zero(t)
			for _, v := range srcs {
				if v.Len() > 0 {
					s = reflect.AppendSlice(s, v)
				}
			}
			dst.Set(s)
		}
	},
}

func ruleNames() string {
	names := []string{"custom"}
	for n := range mergeRules {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func isUint(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// sumElements returns the merge of a field of type t, a slice or array of
// numbers (or of such slices or arrays), to the sums element by element
// over the runs: a slice as long as the longest (absent elements are 0;
// nil if every run's is empty). Nil if t is none of those.
func sumElements(t reflect.Type) func(reflect.Value, []reflect.Value) {
	if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
		return nil
	}
	e := t.Elem()
	var add func(dst, v reflect.Value) // dst += v, of type e
	switch {
	case isInt(e):
		add = func(dst, v reflect.Value) { dst.SetInt(dst.Int() + v.Int()) }
	case isUint(e):
		add = func(dst, v reflect.Value) { dst.SetUint(dst.Uint() + v.Uint()) }
	case e.Kind() == reflect.Float64:
		add = func(dst, v reflect.Value) { dst.SetFloat(dst.Float() + v.Float()) }
	default:
		inner := sumElements(e)
		if inner == nil {
			return nil
		}
		add = func(dst, v reflect.Value) { inner(dst, []reflect.Value{dst, v}) }
	}
	return func(dst reflect.Value, srcs []reflect.Value) {
		var s reflect.Value
		if t.Kind() == reflect.Array {
			s = reflect.New(t).Elem()
		} else {
			n := 0
			for _, v := range srcs {
				n = max(n, v.Len())
			}
			if n == 0 {
				dst.Set(srcs[0])
				return
			}
			s = reflect.MakeSlice(t, n, n)
		}
		for _, v := range srcs {
			for i := range v.Len() {
				add(s.Index(i), v.Index(i))
			}
		}
		dst.Set(s)
	}
}

func isInt(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return true
	}
	return false
}

// extremum returns the merge of a field of type t to its largest (sign 1)
// or smallest (sign -1) value over the runs, the first of equal ones: of
// integers and float64, or of pointers to them, nil being absent. Nil if t
// is none of those.
func extremum(t reflect.Type, sign int) func(reflect.Value, []reflect.Value) {
	ptr := t.Kind() == reflect.Pointer
	e := t
	if ptr {
		e = t.Elem()
	}
	var better func(a, b reflect.Value) bool // a beyond b
	switch {
	case isInt(e):
		better = func(a, b reflect.Value) bool { return sign*cmpInt(a.Int(), b.Int()) > 0 }
	case e.Kind() == reflect.Float64:
		better = func(a, b reflect.Value) bool {
			if sign > 0 {
				return a.Float() > b.Float()
			}
			return a.Float() < b.Float()
		}
	default:
		return nil
	}
	return func(dst reflect.Value, srcs []reflect.Value) {
		var best reflect.Value
		for _, v := range srcs {
			if ptr && v.IsNil() {
				continue
			}
			if !best.IsValid() {
				best = v
				continue
			}
			a, b := v, best
			if ptr {
				a, b = v.Elem(), best.Elem()
			}
			if better(a, b) {
				best = v
			}
		}
		if best.IsValid() {
			dst.Set(best)
		}
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
