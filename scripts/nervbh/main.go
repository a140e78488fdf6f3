// Command nervbh compares the exact and Barnes–Hut SoftClassNeRV fits on
// the four-cluster data and prints a Markdown table of time, stress and
// quality metrics (BENCHMARKS.md). Run from the repository root:
//
//	go run ./scripts/nervbh -n 5000
//	go run ./scripts/nervbh -n 20000 -methods bh
//
// With -write it writes the same data to a Parquet file instead (x, y, z,
// the soft labels p_<class> and the argmax class), the input of the
// `ordinate nerv` run at 10⁶ rows in BENCHMARKS.md:
//
//	go run ./scripts/nervbh -n 1000000 -write four-clusters-1m.parquet
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/internal/synth"
	"github.com/ordinate/ordinate/transforms/nerv"
	"github.com/ordinate/ordinate/transforms/quality"
)

func main() {
	n := flag.Int("n", 5000, "points (a multiple of 4)")
	methods := flag.String("methods", "exact-transfer,exact-global,bh,cutoff", "comma-separated fits (exact-transfer, exact-global, bh, cutoff)")
	tol := flag.Float64("bh-tol", nerv.DefaultBHTol, "Barnes–Hut tolerance")
	cutTol := flag.Float64("cutoff-tol", nerv.DefaultCutoffTol, "cut-off tolerance")
	evalMax := flag.Int("eval-max", 10000, "skip the quality metrics above this many points")
	verbose := flag.Bool("v", false, "print each scale to stderr")
	multiscale := flag.Bool("multiscale", true, "multiscale perplexity schedule")
	maxIter := flag.Int("max-iter", nerv.DefaultOptions().MaxIter, "L-BFGS iterations per scale")
	startAt := flag.String("start", string(nerv.StartAuto), "start of the sparse fits: auto, pca or sample")
	write := flag.String("write", "", "write the data to this Parquet file and stop")
	flag.Parse()
	ctx := context.Background()
	const c = 6
	per := *n / 4
	x, soft := synth.FourClusters(rand.New(rand.NewPCG(1, 2)), per)
	m := 4 * per
	classes := argmax(soft, m, c)
	if *write != "" {
		rec := synth.FourClustersRecord(x, soft, memory.DefaultAllocator)
		defer rec.Release()
		if err := arrowio.WriteRecord(ctx, *write, rec); err != nil {
			log.Fatal(err)
		}
		return
	}
	fmt.Printf("| fit | N | seconds | levels | iterations | stress | T(10) | C(10) | T_inter(10) | KNN gain(10) | R_NX AUC |\n")
	fmt.Printf("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, name := range strings.Split(*methods, ",") {
		o := nerv.DefaultOptions()
		o.Multiscale, o.MaxIter, o.Start = *multiscale, *maxIter, nerv.Start(*startAt)
		switch name {
		case "exact-transfer":
			o.Method = nerv.Exact
		case "exact-global":
			o.Method, o.OutputScale = nerv.Exact, nerv.Global
		case "bh":
			o.Method, o.BHTol = nerv.BarnesHut, *tol
		case "cutoff":
			o.Method, o.CutoffTol = nerv.Cutoff, *cutTol
		default:
			log.Fatalf("unknown fit %q", name)
		}
		start := time.Now()
		if *verbose {
			o.Progress = func(perp, stress float64, iters int) {
				log.Printf("%s: perplexity %.1f, stress %.4f, %d iterations, %.1f s", name, perp, stress, iters, time.Since(start).Seconds())
			}
		}
		r, err := nerv.Fit(ctx, x, m, 3, soft, c, o)
		if err != nil {
			log.Fatal(err)
		}
		secs := time.Since(start).Seconds()
		var iters int
		for _, l := range r.Levels {
			iters += l.Iterations
		}
		row := fmt.Sprintf("| %s | %d | %.1f | %d | %d | %.4f |", name, m, secs, len(r.Levels), iters, r.Stress)
		if m <= *evalMax {
			rep, err := quality.Evaluate(ctx, x, 3, r.Y, 2, classes, quality.Options{Ks: []int{10}})
			if err != nil {
				log.Fatal(err)
			}
			for _, q := range [][2]string{{"trustworthiness", "all"}, {"continuity", "all"}, {"trustworthiness", "inter"}, {"knn_gain", "all"}} {
				v, _ := rep.Value(q[0], 10, q[1])
				row += fmt.Sprintf(" %.4f |", v)
			}
			v, _ := rep.Value("rnx_auc", 0, "all")
			row += fmt.Sprintf(" %.4f |", v)
		} else {
			row += " – | – | – | – | – |"
		}
		fmt.Println(row)
	}
}

func argmax(soft []float64, n, c int) []int {
	cls := make([]int, n)
	for i := range n {
		for k := 1; k < c; k++ {
			if soft[i*c+k] > soft[i*c+cls[i]] {
				cls[i] = k
			}
		}
	}
	return cls
}
