package figure_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ordinate/ordinate/transforms/figure"
)

// A scatter plot of five points in two classes, as SVG.
func ExampleScatter() {
	p := &figure.Points{
		X:        []float64{0, 1, 2, 3, 4},
		Y:        []float64{1, 0, 1, 0, 1},
		Category: []string{"low", "low", "high", "high", "high"},
		Order:    []string{"low", "high"},
	}
	var buf bytes.Buffer
	if err := figure.Scatter(&buf, "svg", p, figure.Style{Title: "two classes"}); err != nil {
		panic(err)
	}
	svg := buf.String()
	fmt.Println(strings.Contains(svg, "<svg"), strings.Contains(svg, "two classes"), strings.Contains(svg, ">high<"))
	// Output:
	// true true true
}
