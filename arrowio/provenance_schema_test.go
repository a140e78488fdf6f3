package arrowio

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// storedSchemaOf decodes the Arrow schema that a Parquet file stores under
// ARROW:schema, or nil when it stores none.
func storedSchemaOf(t *testing.T, path string) *arrow.Schema {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	v := pf.MetaData().KeyValueMetadata().FindValue(parquetSchemaKey)
	if v == nil {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(*v)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ipc.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	return r.Schema()
}

// footerValue returns the footer key/value of a Parquet file, or nil.
func footerValue(t *testing.T, path, key string) *string {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	return pf.MetaData().KeyValueMetadata().FindValue(key)
}

func metaValue(md arrow.Metadata, key string) (string, bool) {
	i := md.FindKey(key)
	if i < 0 {
		return "", false
	}
	return md.Values()[i], true
}

// TestProvenanceInSchemaMetadata writes outputs with provenance and a
// model header as a stage does (set at Create, stamped again at Close):
// every format that has metadata carries both in its Arrow schema
// metadata, which is what pyarrow and pandas read and write back; Parquet
// also keeps them in the footer. The provenance was once only in the
// Parquet footer, which pyarrow does not show.
func TestProvenanceInSchemaMetadata(t *testing.T) {
	ctx := context.Background()
	d := wtMake(50, 3)
	first := &Provenance{Tool: "ordinate", Stage: "pca", Params: map[string]any{"dims": 2}, RunID: "r1"}
	for _, tc := range []struct {
		name, file string
		final      bool // the provenance stamped at Close is the one stored
	}{
		{"parquet", "o.parquet", true},
		{"ipc file", "o.arrow", false},
		{"ipc stream", "o.arrows", false},
	} {
		path := filepath.Join(t.TempDir(), tc.file)
		w, err := Create(ctx, path, wtSchema())
		if err != nil {
			t.Fatal(err)
		}
		js, _ := first.JSON()
		w.SetMetadata(MetadataKey, js)
		w.SetMetadata("ordinate.model", `{"stage":"pca"}`)
		if err := wtWrite(t, memory.DefaultAllocator, w, d); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		last := *first
		last.RowsWritten = w.Rows()
		js, _ = last.JSON()
		w.SetMetadata(MetadataKey, js)
		if err := w.Close(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := int64(0)
		if tc.final {
			want = 50
		}

		// The schema metadata as pyarrow reads it: ARROW:schema for
		// Parquet, the schema of the IPC file or stream.
		var md arrow.Metadata
		if tc.file == "o.parquet" {
			s := storedSchemaOf(t, path)
			if s == nil {
				t.Fatalf("%s: no ARROW:schema", tc.name)
			}
			md = s.Metadata()
			if v := footerValue(t, path, MetadataKey); v == nil || *v != js {
				t.Errorf("%s: footer provenance %v, want %s", tc.name, v, js)
			}
		} else {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			var rs *arrow.Schema
			if tc.file == "o.arrow" {
				r, err := ipc.NewFileReader(f)
				if err != nil {
					t.Fatal(err)
				}
				rs = r.Schema()
				r.Close()
			} else {
				r, err := ipc.NewReader(f)
				if err != nil {
					t.Fatal(err)
				}
				rs = r.Schema()
				r.Release()
			}
			f.Close()
			md = rs.Metadata()
		}
		if v, ok := metaValue(md, MetadataKey); !ok {
			t.Errorf("%s: schema metadata %v has no %q", tc.name, md, MetadataKey)
		} else if p, err := ParseProvenance(v); err != nil || p.RowsWritten != want || p.RunID != "r1" {
			t.Errorf("%s: schema provenance %s (%v), want rows_written %d", tc.name, v, err, want)
		}
		if v, ok := metaValue(md, "ordinate.model"); !ok || v != `{"stage":"pca"}` {
			t.Errorf("%s: schema metadata %v lacks the model header", tc.name, md)
		}
		if v, ok := metaValue(md, "origin"); !ok || v != "test" {
			t.Errorf("%s: schema metadata %v lacks the schema's own key", tc.name, md)
		}

		// And arrowio reads it back: the reader's schema and Inspect.
		r, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		v, ok := metaValue(r.Schema().Metadata(), MetadataKey)
		r.Release()
		if p, err := ParseProvenance(v); !ok || err != nil || p.RowsWritten != want {
			t.Errorf("%s: Open's schema provenance %q (%v)", tc.name, v, err)
		}
		fi, err := Inspect(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Provenance == nil || fi.Provenance.RowsWritten != want || fi.Metadata["ordinate.model"] == "" {
			t.Errorf("%s: Inspect: provenance %+v, metadata %v", tc.name, fi.Provenance, fi.Metadata)
		}
	}
}

// TestStoredSchemaAsPqarrow checks that the ARROW:schema written at Close
// describes the columns as pqarrow's own would: the same fields, list
// elements named "element", fixed-size lists kept, so that pqarrow reads
// the same types back.
func TestStoredSchemaAsPqarrow(t *testing.T) {
	dir := t.TempDir()
	ours := filepath.Join(dir, "ours.parquet")
	rec := wtMake(20, 4).batch(memory.DefaultAllocator, 0, 20)
	defer rec.Release()
	if err := WriteRecord(context.Background(), ours, rec); err != nil {
		t.Fatal(err)
	}
	// pqarrow's, from a schema without dictionaries or fixed-size lists
	// that it can write directly.
	theirs := filepath.Join(dir, "theirs.parquet")
	f, err := os.Create(theirs)
	if err != nil {
		t.Fatal(err)
	}
	fw, err := pqarrow.NewFileWriter(rec.Schema(), f, parquet.NewWriterProperties(), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	a, b := storedSchemaOf(t, ours), storedSchemaOf(t, theirs)
	if a == nil || b == nil {
		t.Fatalf("stored schemas %v and %v", a, b)
	}
	if !arrow.NewSchema(a.Fields(), nil).Equal(arrow.NewSchema(b.Fields(), nil)) {
		t.Errorf("stored schema\n%s\nwant, as pqarrow stores it,\n%s", a, b)
	}
	if !a.Metadata().Equal(b.Metadata()) {
		t.Errorf("stored metadata %v, want %v", a.Metadata(), b.Metadata())
	}
}

// TestProvenanceEitherPlace reads Parquet files that carry the provenance
// in one place only: the footer (as ordinate wrote it before, and as
// writers that store no Arrow schema do), or the stored Arrow schema (as a
// tool may write back a table whose footer keys it dropped). Open and
// Inspect find it in both.
func TestProvenanceEitherPlace(t *testing.T) {
	ctx := context.Background()
	p := &Provenance{Tool: "ordinate", Stage: "bvp", Params: map[string]any{}, RowsWritten: 7, RunID: "either"}
	js, _ := p.JSON()
	rec := floatRecord(7)
	defer rec.Release()
	write := func(t *testing.T, path string, inSchema, inFooter bool) {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fw, err := pqarrow.NewFileWriter(rec.Schema(), f, parquet.NewWriterProperties(), pqarrow.NewArrowWriterProperties())
		if err != nil {
			t.Fatal(err)
		}
		if err := fw.Write(rec); err != nil {
			t.Fatal(err)
		}
		if inFooter {
			if err := fw.AppendKeyValueMetadata(MetadataKey, js); err != nil {
				t.Fatal(err)
			}
		}
		md := arrow.Metadata{}
		if inSchema {
			md = arrow.NewMetadata([]string{MetadataKey}, []string{js})
		}
		stored, err := storedSchema(rec.Schema(), md, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		if err := fw.AppendKeyValueMetadata(parquetSchemaKey, stored); err != nil {
			t.Fatal(err)
		}
		if err := fw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name               string
		inSchema, inFooter bool
	}{
		{"footer only", false, true},
		{"stored schema only", true, false},
		{"both", true, true},
	} {
		path := filepath.Join(t.TempDir(), "p.parquet")
		write(t, path, tc.inSchema, tc.inFooter)
		r, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		v, ok := metaValue(r.Schema().Metadata(), MetadataKey)
		r.Release()
		if !ok || v != js {
			t.Errorf("%s: Open's schema metadata has %q (%v), want %s", tc.name, v, ok, js)
		}
		fi, err := Inspect(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Provenance == nil || fi.Provenance.RunID != "either" || fi.Metadata[MetadataKey] != js {
			t.Errorf("%s: Inspect: provenance %+v, metadata %v", tc.name, fi.Provenance, fi.Metadata)
		}
	}
}
