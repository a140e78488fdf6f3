package arrowio_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/ordinate/ordinate/arrowio"
)

func ExampleOpen() {
	dir, err := os.MkdirTemp("", "arrowio-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "grades.csv")
	data := "id,x1,x2,label\n" +
		"a,1,0.5,low\n" +
		"b,2,NA,mid\n" +
		"c,3,1.5,high\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		log.Fatal(err)
	}

	r, err := arrowio.Open(context.Background(), path)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Release()
	for _, f := range r.Schema().Fields() {
		fmt.Printf("%s: %s\n", f.Name, f.Type)
	}
	var rows int64
	for r.Next() {
		rows += r.RecordBatch().NumRows()
	}
	if err := r.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("rows:", rows)
	// Output:
	// id: utf8
	// x1: int64
	// x2: float64
	// label: utf8
	// rows: 3
}
