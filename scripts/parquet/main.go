// Command parquet is the Go half of scripts/parquet/bench.mjs, which times
// ordinate's Parquet reading and `ordinate apply` against DuckDB.
//
//	go run ./scripts/parquet gen ROWS TABLE MODEL COEFS
//	    writes ROWS × 32 float64 columns x0 … x31 (four decimal digits, the
//	    values of the huge benchmarks of arrowio and transforms) to TABLE
//	    with arrowio's writer, the 2-D affine model of BenchmarkApplyHuge to
//	    MODEL, and the model's map y = x·w − b to COEFS as JSON, for the SQL
//	    that DuckDB runs.
//	go run ./scripts/parquet read TABLE THREADS [BATCH]
//	    reads TABLE whole through arrowio.Open with THREADS decoding
//	    threads (and batches of BATCH rows) and prints the rows and the
//	    seconds taken.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/internal/synth"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/affine"
)

const cols = 32

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "parquet:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	switch {
	case len(args) == 5 && args[0] == "gen":
		rows, err := strconv.Atoi(args[1])
		if err != nil {
			return err
		}
		return gen(rows, args[2], args[3], args[4])
	case (len(args) == 3 || len(args) == 4) && args[0] == "read":
		threads, err := strconv.Atoi(args[2])
		if err != nil {
			return err
		}
		batch := arrowio.DefaultBatchSize
		if len(args) == 4 {
			if batch, err = strconv.Atoi(args[3]); err != nil {
				return err
			}
		}
		return read(args[1], threads, batch)
	}
	return fmt.Errorf("usage: gen ROWS TABLE MODEL COEFS | read TABLE THREADS [BATCH]")
}

// gen writes the table, the model and its coefficients.
func gen(rows int, table, model, coefs string) error {
	ctx := context.Background()
	w, err := arrowio.Create(ctx, table, synth.DecimalSchema(cols))
	if err != nil {
		return err
	}
	defer w.Abort()
	if err := synth.DecimalBatches(rows, cols, 1<<16, memory.DefaultAllocator, w.Write); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}

	// The model of transforms' BenchmarkApplyHuge (benchModel).
	mrng := rand.New(rand.NewPCG(7, 8))
	s := &transforms.Scaling{}
	origin := make([]float64, cols)
	axes := mat.NewDense(cols, 2, nil)
	for f := range cols {
		s.Names = append(s.Names, fmt.Sprintf("x%d", f))
		s.Cols = append(s.Cols, f)
		s.Mean = append(s.Mean, mrng.NormFloat64())
		s.Scale = append(s.Scale, 1+mrng.Float64())
		axes.Set(f, 0, mrng.NormFloat64())
		axes.Set(f, 1, mrng.NormFloat64())
	}
	m := affine.New("bvp", s, "", true, origin, axes, nil)
	env := &transforms.Env{
		Tables:  &transforms.FileTables{Paths: map[string]string{"model-out": model}},
		Threads: 1, Mem: memory.DefaultAllocator, Version: "bench",
		Log:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		Prov: &arrowio.Provenance{Tool: "ordinate", Stage: "bvp", Seed: 9, Figures: map[string]any{}},
	}
	if err := env.WriteModel(ctx, "model-out", m); err != nil {
		return err
	}
	// y_k = Σ_f x_f·axes[f,k]/scale_f − Σ_f (mean_f/scale_f + origin_f)·axes[f,k]
	out := struct {
		W [2][]float64 `json:"w"`
		B [2]float64   `json:"b"`
	}{}
	for k := range 2 {
		for f := range cols {
			out.W[k] = append(out.W[k], axes.At(f, k)/s.Scale[f])
			out.B[k] += (s.Mean[f]/s.Scale[f] + origin[f]) * axes.At(f, k)
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	return os.WriteFile(coefs, b, 0o644)
}

// read reads the table whole and prints its rows and the seconds taken.
func read(table string, threads, batch int) error {
	start := time.Now()
	r, err := arrowio.Open(context.Background(), table, arrowio.WithReadThreads(threads), arrowio.WithBatchSize(batch))
	if err != nil {
		return err
	}
	defer r.Release()
	var n int64
	for r.Next() {
		n += r.RecordBatch().NumRows()
	}
	if err := r.Err(); err != nil {
		return err
	}
	fmt.Printf("%d %.3f\n", n, time.Since(start).Seconds())
	return nil
}
