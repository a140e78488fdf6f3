package table

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// EmbeddingPrefix begins the name of every embedding column.
const EmbeddingPrefix = "emb_"

// EmbeddingColumn is the name of output axis j.
func EmbeddingColumn(j int) string { return fmt.Sprintf("emb_%d", j) }

// EmbeddingSchema is the schema of an embedding table for rows like f's: the
// id column, the kept columns (a kept column that is the id is not repeated),
// then emb_0 … emb_{d−1} as non-null float64.
func EmbeddingSchema(f *arrowio.Frame, d int) (*arrow.Schema, error) {
	fields := []arrow.Field{{Name: f.IDName, Type: f.ID.DataType(), Nullable: true}}
	seen := map[string]bool{f.IDName: true}
	for _, kf := range f.KeepFields {
		if kf.Name == f.IDName {
			continue
		}
		if strings.HasPrefix(kf.Name, "emb_") {
			return nil, fmt.Errorf("%w: kept column %q would clash with the embedding columns emb_*", arrowio.ErrSelection, kf.Name)
		}
		seen[kf.Name] = true
		fields = append(fields, arrow.Field{Name: kf.Name, Type: kf.Type, Nullable: true, Metadata: kf.Metadata})
	}
	for j := range d {
		fields = append(fields, arrow.Field{Name: EmbeddingColumn(j), Type: arrow.PrimitiveTypes.Float64})
	}
	return arrow.NewSchema(fields, nil), nil
}

// EmbeddingRecord builds one output batch of schema (from EmbeddingSchema)
// from the frame's id and kept columns and the f.N×d row-major emb.
func EmbeddingRecord(mem memory.Allocator, schema *arrow.Schema, f *arrowio.Frame, emb []float64) arrow.RecordBatch {
	nkeep := 0
	for _, kf := range f.KeepFields {
		if kf.Name != f.IDName {
			nkeep++
		}
	}
	d := schema.NumFields() - 1 - nkeep
	if len(emb) != f.N*d {
		panic(fmt.Sprintf("table: EmbeddingRecord: %d values for %d rows × %d dims", len(emb), f.N, d))
	}
	cols := make([]arrow.Array, 0, schema.NumFields())
	f.ID.Retain()
	cols = append(cols, f.ID)
	for i, kf := range f.KeepFields {
		if kf.Name == f.IDName {
			continue
		}
		f.Keep[i].Retain()
		cols = append(cols, f.Keep[i])
	}
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	col := make([]float64, f.N)
	for j := range d {
		for i := range col {
			col[i] = emb[i*d+j]
		}
		b.AppendValues(col, nil)
		cols = append(cols, b.NewArray())
	}
	rec := array.NewRecordBatch(schema, cols, int64(f.N))
	for _, c := range cols {
		c.Release()
	}
	return rec
}
