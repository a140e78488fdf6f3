package arrowio_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

func ExampleCreate() {
	dir, err := os.MkdirTemp("", "ordinate-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "embedding.parquet")

	schema := arrow.NewSchema([]arrow.Field{
		{Name: "row", Type: arrow.PrimitiveTypes.Int64},
		{Name: "emb_0", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	ctx := context.Background()
	w, err := arrowio.Create(ctx, path, schema)
	if err != nil {
		log.Fatal(err)
	}
	defer w.Abort() // removes the temporary file unless Close succeeded

	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{0, 1, 2}, nil)
	b.Field(1).(*array.Float64Builder).AppendValues([]float64{-0.5, 0, 0.5}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		log.Fatal(err)
	}

	// The provenance records the rows written, so it is set after the last
	// Write; Parquet writes it to the footer at Close.
	prov := arrowio.Provenance{Tool: "ordinate", Stage: "pca", RowsWritten: w.Rows()}
	js, err := prov.JSON()
	if err != nil {
		log.Fatal(err)
	}
	w.SetMetadata(arrowio.MetadataKey, js)
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	fi, err := arrowio.Inspect(ctx, path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(fi.Format, fi.Rows, "rows in", len(fi.RowGroups), "row group")
	fmt.Println("stage:", fi.Provenance.Stage, "rows written:", fi.Provenance.RowsWritten)
	// Output:
	// parquet 3 rows in 1 row group
	// stage: pca rows written: 3
}
