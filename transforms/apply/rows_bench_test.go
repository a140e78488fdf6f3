package apply

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/internal/synth"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/affine"
)

// benchModel is a 2-D affine model over the features x0 … x{cols−1}.
func benchModel(cols int) *affine.Model {
	rng := rand.New(rand.NewPCG(7, 8))
	s := &transforms.Scaling{}
	origin := make([]float64, cols)
	axes := mat.NewDense(cols, 2, nil)
	for f := range cols {
		s.Names = append(s.Names, fmt.Sprintf("x%d", f))
		s.Cols = append(s.Cols, f)
		s.Mean = append(s.Mean, rng.NormFloat64())
		s.Scale = append(s.Scale, 1+rng.Float64())
		axes.Set(f, 0, rng.NormFloat64())
		axes.Set(f, 1, rng.NormFloat64())
	}
	return affine.New("bvp", s, "", true, origin, axes, nil)
}

// benchTable writes rows × cols float64 values (four decimal digits, as
// arrowio's read benchmark does) unless path exists.
func benchTable(b *testing.B, path string, rows, cols int) {
	if _, err := os.Stat(path); err == nil {
		return
	}
	w, err := arrowio.Create(context.Background(), path, synth.DecimalSchema(cols))
	if err != nil {
		b.Fatal(err)
	}
	defer w.Abort()
	if err := synth.DecimalBatches(rows, cols, 1<<16, memory.DefaultAllocator, w.Write); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

// benchApply streams the table through the model into a Parquet file b.N
// times, reporting input MB/s (SetBytes) and rows/s.
func benchApply(b *testing.B, in, out string, rows, cols int) {
	m := benchModel(cols)
	ctx := context.Background()
	b.SetBytes(int64(rows) * int64(cols) * 8)
	b.ResetTimer()
	for range b.N {
		r, err := arrowio.Open(ctx, in)
		if err != nil {
			b.Fatal(err)
		}
		var w arrowio.Writer
		st, err := Rows(ctx, m, r, arrowio.Selection{}, func(s *arrow.Schema) (arrowio.Writer, error) {
			w, err = arrowio.Create(ctx, out, s)
			return w, err
		}, Config{Mem: memory.DefaultAllocator})
		r.Release()
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		if st.Rows != int64(rows) {
			b.Fatalf("applied %d rows, want %d", st.Rows, rows)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkApply streams 10^5 rows × 32 float64 columns through a 2-D model.
func BenchmarkApply(b *testing.B) {
	dir := b.TempDir()
	in := filepath.Join(dir, "in.parquet")
	benchTable(b, in, 100_000, 32)
	benchApply(b, in, filepath.Join(dir, "out.parquet"), 100_000, 32)
}

// BenchmarkApplyHuge streams 10^7 rows × 32 float64 columns (2.56 GB of
// values) through a 2-D model. It runs only with ORDINATE_BENCH_HUGE=1 and
// shares its input file, in the system's temporary folder, with arrowio's
// huge read benchmark. It also leaves the model there as
// ordinate-bench-model-32.parquet for timing `ordinate apply` by hand.
func BenchmarkApplyHuge(b *testing.B) {
	if os.Getenv("ORDINATE_BENCH_HUGE") != "1" {
		b.Skip("ORDINATE_BENCH_HUGE=1 runs it: it streams a 10,000,000 × 32 Parquet file (about 1 GB in the temporary folder), too much for every go test run")
	}
	const rows, cols = 10_000_000, 32
	in := filepath.Join(os.TempDir(), "ordinate-bench-10M-32.parquet")
	benchTable(b, in, rows, cols)
	if err := saveModel(context.Background(), filepath.Join(os.TempDir(), "ordinate-bench-model-32.parquet"), benchModel(cols)); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "out.parquet")
	benchApply(b, in, out, rows, cols)
}
