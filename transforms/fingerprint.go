package transforms

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"slices"

	"github.com/ordinate/ordinate/arrowio"
)

// FingerprintScheme prefixes the hash of a fingerprint: the scheme below,
// version 1.
const FingerprintScheme = "sha256-sum"

// Fingerprinter computes the fingerprint of the rows of a feature table
// (arrowio.Fingerprint), batch by batch: the row count, and the sum of one
// SHA-256 per row. Each row's hash covers, in this order:
//
//   - its identity: with an id column, the byte 'i', the length of the
//     id's text (as arrow's ValueStr writes it) as an unsigned varint and
//     that text; without one, the byte 'r' and the row's 0-based input row
//     number as 8 bytes little-endian;
//   - its features as read (before any standardisation), in the order of
//     the columns: each value as the 8 bytes little-endian of its IEEE 754
//     float64 bits, −0 written as +0.
//
// The 32-byte digests are added as four little-endian 64-bit words, each
// modulo 2⁶⁴; the hash is FingerprintScheme, ":" and the 32 bytes of the
// sum in hex. A sum does not depend on the order of the rows (rows matched
// by id may come in any order; rows without ids carry their row numbers),
// and the sums of the parts of a table add up to the whole's. It detects
// any change of a value, an id, a row number, the rows or the columns; it
// is a check against mistakes, not a signature.
type Fingerprinter struct {
	id      string
	columns []string
	rows    int64
	sum     [4]uint64
	buf     []byte
}

// NewFingerprinter starts the fingerprint of rows identified by the id
// column id ("" for input row numbers), with the feature columns columns.
func NewFingerprinter(id string, columns []string) *Fingerprinter {
	return &Fingerprinter{id: id, columns: slices.Clone(columns)}
}

// Add adds the rows of f: its ids (f.ID) when the fingerprint has an id
// column, else its row numbers (f.Rows), and its features (X, or Columns).
func (fp *Fingerprinter) Add(f *arrowio.Frame) {
	for i := range f.N {
		b := fp.buf[:0]
		if fp.id != "" {
			s := f.ID.ValueStr(i)
			b = append(b, 'i')
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		} else {
			b = append(b, 'r')
			b = binary.LittleEndian.AppendUint64(b, uint64(frameRow(f, i)))
		}
		for j := range f.D {
			var v float64
			if f.X != nil {
				v = f.X[i*f.D+j]
			} else {
				v = f.Columns[j][i]
			}
			if v == 0 {
				v = 0 // −0 as +0
			}
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		h := sha256.Sum256(b)
		for w := range fp.sum {
			fp.sum[w] += binary.LittleEndian.Uint64(h[8*w:])
		}
		fp.buf = b
	}
	fp.rows += int64(f.N)
}

// Fingerprint returns the fingerprint of the rows added so far.
func (fp *Fingerprinter) Fingerprint() *arrowio.Fingerprint {
	var b [32]byte
	for w, v := range fp.sum {
		binary.LittleEndian.PutUint64(b[8*w:], v)
	}
	return &arrowio.Fingerprint{Rows: fp.rows, ID: fp.id, Columns: slices.Clone(fp.columns),
		Hash: FingerprintScheme + ":" + hex.EncodeToString(b[:])}
}

// FingerprintOf returns the fingerprint of the rows of f: identified by
// its id column when byID, else by their input row numbers; its features
// as read (the list column, for list features).
func FingerprintOf(f *arrowio.Frame, byID bool) *arrowio.Fingerprint {
	id := ""
	if byID {
		id = f.IDName
	}
	fp := NewFingerprinter(id, FingerprintColumns(f))
	fp.Add(f)
	return fp.Fingerprint()
}

// FingerprintColumns are the feature columns of f as a fingerprint names
// them: its list column, or its feature columns.
func FingerprintColumns(f *arrowio.Frame) []string {
	if f.FeatureList != "" {
		return []string{f.FeatureList}
	}
	return slices.Clone(f.FeatureNames)
}

// SetInputFingerprint records fp as the fingerprint of the rows read from
// the input of role (the last one recorded under that role; Input records
// inputs).
func (env *Env) SetInputFingerprint(role string, fp *arrowio.Fingerprint) {
	env.mu.Lock()
	defer env.mu.Unlock()
	for i := len(env.Prov.Inputs) - 1; i >= 0; i-- {
		if env.Prov.Inputs[i].Role == role {
			env.Prov.Inputs[i].Fingerprint = fp
			return
		}
	}
}
