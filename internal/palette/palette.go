// Package palette gives every algorithm and every message type a colour
// of its own, fixed by its name: the report's plots (package report) and
// the view's pages (package view) draw a name in the same colour whatever
// else a plot or a trace holds, and in whatever order names appear.
//
// The names known today have a fixed slot each (Algorithms, messageSlot);
// a name not listed gets a slot from a hash of the name, fixed too, but
// which may then be shared with another name. TestEveryName checks that
// every registered algorithm and message type is listed, that no two
// algorithms share a style and that no algorithm has two message types of
// one colour.
package palette

import (
	"hash/fnv"
	"image/color"
	"slices"
	"strings"
)

// SeriesColors are the colours of the plots' series (Tableau 10, whose
// neighbours differ in hue and lightness).
var SeriesColors = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xd6, 0x27, 0x28, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff},
	{0xbc, 0xbd, 0x22, 0xff}, {0x17, 0xbe, 0xcf, 0xff},
}

// Shapes is the number of marker shapes a series may take
// (gonum's plotutil.Shape 0 to Shapes−1).
const Shapes = 4

// Algorithms lists the algorithms with a fixed style: the k-th has colour
// SeriesColors[k mod 10] and shape k / 10. A new algorithm is added at
// the end, so that no other changes style.
var Algorithms = []string{
	"opencube", "centralized", "helary-plouzeau-raynal-line", "helary-plouzeau-raynal-ring", "helary-plouzeau-raynal-tree",
	"kofl", "maekawa-grid", "mizuno-neilsen-rao-plane", "mizuno-neilsen-rao-tree", "naimi-trehel-ft",
	"neilsen-mizuno-line", "neilsen-mizuno-star", "raymond-lift", "sanders-broadcast", "suzuki-kasami-bounded",
	"topology-hypercube", "lamport", "ricart-agrawala", "carvalho-roucairol", "raynal",
	"maekawa", "sanders", "agrawal-el-abbadi", "singhal", "suzuki-kasami",
	"ricart-agrawala-token", "singhal-token", "mizuno-neilsen-rao", "neilsen-mizuno", "helary-plouzeau-raynal",
	"raymond", "naimi-trehel", "mishra-srimani", "nishio", "raymond-kex",
	"srimani-reddy", "kakugawa",
}

// Style is how a plot draws an algorithm's series.
type Style struct {
	Color color.RGBA
	// Shape is the marker's shape, in 0..Shapes−1 (plotutil.Shape).
	Shape int
}

// Algorithm returns the style of an algorithm's series, fixed by its name.
func Algorithm(name string) Style {
	k := slices.Index(Algorithms, name)
	if k < 0 {
		k = int(hash(name) % uint32(len(SeriesColors)*Shapes))
	}
	return Style{Color: SeriesColors[k%len(SeriesColors)], Shape: k / len(SeriesColors) % Shapes}
}

// MessageColors are the colours of message types (CSS), and TokenColor
// that of a type that carries the token (its name holds "token").
var MessageColors = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
	"#17becf", "#7f7f7f", "#bcbd22", "#d62728", "#393b79", "#637939"}

// TokenColor is the colour of the token's messages, in every algorithm.
const TokenColor = "#c88a00"

// messageSlot is each known message type's colour (an index in
// MessageColors), chosen so that an algorithm's types differ.
var messageSlot = map[string]int{
	"request": 0, "locked": 1, "failed": 2, "inquire": 3, "relinquish": 4, "release": 5,
	"reply": 1, "anomaly": 1, "grant": 1, "fail": 2, "yield": 4, "allocate": 0,
	"collect": 1, "disable": 2, "privilege_check": 1, "rep_critical": 2, "no_crit": 3, "false_alarm": 4,
	"create_privilege": 5, "update": 6, "recovered": 7, "restart": 8, "restart_reply": 9, "forward": 1,
	"acquired": 2, "consult": 1, "consult_ack": 2, "query": 3, "query_ack": 4, "election": 5,
	"elected": 6, "resend": 7, "ack": 1, "nack": 2, "enquiry": 2, "enquiry_reply": 3,
	"test": 4, "answer": 5, "wait": 6, "regenerate": 7, "probe": 8, "attach": 9,
	"reattach": 10, "chase": 11, "relay": 1,
}

// IsToken reports whether a message type carries the token: its name
// holds "token", in any case.
func IsToken(name string) bool { return strings.Contains(strings.ToLower(name), "token") }

// Message returns the colour of a message type (CSS), fixed by its name.
func Message(name string) string {
	if IsToken(name) {
		return TokenColor
	}
	k, ok := messageSlot[name]
	if !ok {
		k = int(hash(name) % uint32(len(MessageColors)))
	}
	return MessageColors[k]
}

func hash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}
