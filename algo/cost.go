package algo

import "github.com/ocbench/ocbench/proto"

// AtMost is the stated-cost kind (proto.CostKind, recorded as "bound") of
// a paper's upper bound alone: "at most 2(N−1)" (raymond-kex, survey §4),
// "an upper bound of 2(N−1)²" (raynal, survey §4). High is the bound; Low
// is 0 because the paper states no lower end, and tables print the bound
// as "≤ High", not as a range from 0. Mean/stated divides by the bound
// (proto.Cost.Comparable).
const AtMost = proto.Derived + 1
