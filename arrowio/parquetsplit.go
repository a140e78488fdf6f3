package arrowio

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/compress"
)

// BYTE_STREAM_SPLIT stores byte k of every value of a page together, so
// that zstd sees the sign and exponent bytes of floats, which vary little,
// apart from the noisy low mantissa bytes. On full-precision doubles (the
// embeddings and models that ordinate writes, which plain zstd cannot
// compress at all) it makes zstd files smaller and writing cheaper. On
// values that repeat, such as decimals with few digits, it does the
// opposite: zstd finds the repeated 8-byte values in plain pages but not in
// split ones, and the file grows to about twice the plain one. So the
// encoding is chosen per column from the values of the first row group:
// splitSample values are compressed both ways and the split wins when it is
// at least splitGain smaller. Sampling costs time per float column and
// file, so the sample is half of the 65,536 values first tried; at 16,384
// the gain on normal values comes too close to splitGain, and at 4,096
// zstd does not compress either way (BENCHMARKS.md, "Parquet I/O
// (arrowio)", the writer settings).
const (
	splitSample = 1 << 15
	splitGain   = 0.95
)

// chooseSplit tells whether column c of the batches, of type t, should be
// written BYTE_STREAM_SPLIT: top-level float32 and float64 columns whose
// first values compress better split (see above). Null slots are sampled
// as they are; they hold zeros when built by arrow-go.
func chooseSplit(t arrow.DataType, recs []arrow.RecordBatch, c int) bool {
	var width int
	switch t.ID() {
	case arrow.FLOAT64:
		width = 8
	case arrow.FLOAT32:
		width = 4
	default:
		return false
	}
	var plain []byte
	for _, rec := range recs {
		a := rec.Column(c)
		var b []byte
		switch a := a.(type) {
		case *array.Float64:
			b = arrow.Float64Traits.CastToBytes(a.Float64Values())
		case *array.Float32:
			b = arrow.Float32Traits.CastToBytes(a.Float32Values())
		default:
			return false
		}
		plain = append(plain, b[:min(len(b), splitSample*width-len(plain))]...)
		if len(plain) >= splitSample*width {
			break
		}
	}
	n := len(plain) / width
	if n == 0 {
		return false
	}
	split := make([]byte, len(plain))
	for i := range n {
		for k := range width {
			split[k*n+i] = plain[i*width+k]
		}
	}
	codec, err := compress.GetCodec(compress.Codecs.Zstd)
	if err != nil {
		return false
	}
	buf := make([]byte, codec.CompressBound(int64(len(plain))))
	p := len(codec.EncodeLevel(buf, plain, parquetZstdLevel))
	s := len(codec.EncodeLevel(buf, split, parquetZstdLevel))
	return float64(s) < splitGain*float64(p)
}

// dictMaxDistinct is the share of distinct values in a sample above which an
// integer or text column is written without a dictionary. arrow-go
// dictionary-encodes such columns by default and falls back to plain
// encoding only once the dictionary page is full (1 MiB): for a column of
// unique values, such as the row numbers and ids that every ordinate
// output carries, that is a hash of every value into a dictionary thrown
// away, per column chunk.
const dictMaxDistinct = 0.5

// chooseNoDictionary tells whether column c of the batches, of type t,
// should be written without a dictionary: a top-level integer or string
// column with more than dictMaxDistinct distinct values among its first
// splitSample (nulls do not count). Values are compared by their text
// (ValueStr), which is distinct exactly when they are; it runs once per
// file, on the sample only.
func chooseNoDictionary(t arrow.DataType, recs []arrow.RecordBatch, c int) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.STRING, arrow.LARGE_STRING:
	default:
		return false
	}
	seen := map[string]struct{}{}
	var sampled int
	for _, rec := range recs {
		a := rec.Column(c)
		for i := 0; i < a.Len() && sampled < splitSample; i++ {
			if a.IsNull(i) {
				continue
			}
			seen[a.ValueStr(i)] = struct{}{}
			sampled++
		}
	}
	return sampled > 0 && float64(len(seen)) > dictMaxDistinct*float64(sampled)
}
