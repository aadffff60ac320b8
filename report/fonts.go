package report

import (
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
)

// plotFont is the one font of the plots: Go Regular (golang.org/x/image's
// gofont, a sans-serif with Greek, ±, ·, − and …). gonum measures every
// text with it (the legend's width, the margins a label needs), and the
// SVGs embed it (render), so that a browser draws the text with the font
// it was measured with, whatever fonts the machine has: no label is cut
// because the reader's substitute font is wider.
var plotFont = font.Font{Typeface: "Go"}

func init() {
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		panic("report: parsing Go Regular: " + err.Error())
	}
	font.DefaultCache.Add(font.Collection{{Font: plotFont, Face: f}})
	plot.DefaultFont = plotFont
	plotter.DefaultFont = plotFont
}
