package quality

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

// This file pairs an embedding with the table it is scored against: which
// id column matches their rows, whether the table holds the very rows the
// embedding was fitted on (the fingerprint its provenance records), and
// the matching itself.

// embeddingID chooses the id column that matches the rows of an embedding
// with schema and provenance prov: the id option; else the id column the
// stage that made it recorded, when the embedding has it; else the row
// column ordinate writes without an id; else a column named id (an
// embedding of a distance table). It reports where the choice came from.
func embeddingID(schema *arrow.Schema, prov *arrowio.Provenance, opt string) (id, src string) {
	if opt != "" {
		return opt, sourceOption
	}
	has := func(name string) bool { return schema != nil && len(schema.FieldIndices(name)) == 1 }
	if prov != nil {
		if s, ok := prov.Params["id"].(string); ok && s != "" && has(s) {
			return s, sourceEmbedding
		}
	}
	if !has("row") && has("id") {
		return "id", sourceDefault
	}
	return "row", sourceDefault
}

// fittedInput returns the record of the feature table the embedding was
// fitted on (or placed from): the input of role "in" that carries a
// fingerprint, else any input that does; nil when none does.
func fittedInput(prov *arrowio.Provenance) *arrowio.InputInfo {
	if prov == nil {
		return nil
	}
	var any *arrowio.InputInfo
	for i := range prov.Inputs {
		in := &prov.Inputs[i]
		if in.Fingerprint == nil {
			continue
		}
		if in.Role == "in" {
			return in
		}
		if any == nil {
			any = in
		}
	}
	return any
}

// partsInput is fittedInput for an embedding read from several files (the
// outputs of apply --shard i/N, say): the parts' fingerprints added up,
// which is the fingerprint of all their rows (the sum does not depend on
// how the rows are split). It returns nil, with the reason, when a part
// records no fingerprint or one of other columns, identity or scheme.
func partsInput(ctx context.Context, files []string) (*arrowio.InputInfo, string) {
	var total *arrowio.InputInfo
	var sum [4]uint64
	for _, file := range files {
		r, err := arrowio.Open(ctx, file)
		if err != nil {
			return nil, fmt.Sprintf("%s cannot be opened: %v", file, err)
		}
		rec := fittedInput(transforms.TableProvenance(r.Schema()))
		r.Release()
		if rec == nil {
			return nil, fmt.Sprintf("its part %s records no fingerprint", file)
		}
		lanes, ok := hashLanes(rec.Fingerprint.Hash)
		if !ok {
			return nil, fmt.Sprintf("its part %s records a fingerprint of another scheme", file)
		}
		if total == nil {
			c := *rec
			fp := *rec.Fingerprint
			c.Fingerprint = &fp
			c.Fingerprint.Rows = 0
			total = &c
		} else if rec.Fingerprint.ID != total.Fingerprint.ID || strings.Join(rec.Fingerprint.Columns, "\x00") != strings.Join(total.Fingerprint.Columns, "\x00") {
			return nil, fmt.Sprintf("its parts record fingerprints of different columns or ids (%s)", file)
		} else if rec.Path != total.Path {
			total.Path = total.Path + ", " + rec.Path
		}
		total.Fingerprint.Rows += rec.Fingerprint.Rows
		for w := range sum {
			sum[w] += lanes[w]
		}
	}
	if total == nil {
		return nil, "it has no part"
	}
	total.Fingerprint.Hash = laneHash(sum)
	return total, ""
}

// hashLanes reads the four words of a fingerprint hash.
func hashLanes(h string) ([4]uint64, bool) {
	var lanes [4]uint64
	hexs, ok := strings.CutPrefix(h, transforms.FingerprintScheme+":")
	b, err := hex.DecodeString(hexs)
	if !ok || err != nil || len(b) != 32 {
		return lanes, false
	}
	for w := range lanes {
		lanes[w] = binary.LittleEndian.Uint64(b[8*w:])
	}
	return lanes, true
}

// laneHash writes four words as a fingerprint hash.
func laneHash(lanes [4]uint64) string {
	var b [32]byte
	for w, v := range lanes {
		binary.LittleEndian.PutUint64(b[8*w:], v)
	}
	return transforms.FingerprintScheme + ":" + hex.EncodeToString(b[:])
}

// distancesInput returns the record of the distance table an embedding was
// fitted on (t-SNE of a distance table: an input of role distances and no
// feature table), or nil.
func distancesInput(prov *arrowio.Provenance) *arrowio.InputInfo {
	if prov == nil || fittedInput(prov) != nil {
		return nil
	}
	var d *arrowio.InputInfo
	for i := range prov.Inputs {
		switch prov.Inputs[i].Role {
		case "in":
			return nil
		case "distances":
			d = &prov.Inputs[i]
		}
	}
	return d
}

// sameColumns reports whether the fingerprint's columns are those of f.
func sameColumns(fp *arrowio.Fingerprint, f *arrowio.Frame) bool {
	cols := transforms.FingerprintColumns(f)
	if len(cols) != len(fp.Columns) {
		return false
	}
	for i := range cols {
		if cols[i] != fp.Columns[i] {
			return false
		}
	}
	return true
}

// rowsFingerprint returns the fingerprint of the rows of the table of role
// in, the way fit recorded it: the same columns, the same identity (ids
// or row numbers), the same invalid-value policy. The frame f already
// read is used when it has them; otherwise the columns are read again
// (ok false, with no error, when the table cannot be read twice: a stream
// on stdin).
func rowsFingerprint(ctx context.Context, env *transforms.Env, f *arrowio.Frame, idOpt string, fit *arrowio.Fingerprint, onInvalid arrowio.OnInvalid) (got *arrowio.Fingerprint, ok bool, err error) {
	byRow := fit.ID == ""
	if sameColumns(fit, f) && (byRow || idOpt == fit.ID) {
		fp := transforms.NewFingerprinter(fit.ID, fit.Columns)
		fp.Add(f)
		return fp.Fingerprint(), true, nil
	}
	if f.Source.Path == "-" {
		return nil, false, nil
	}
	r, err := env.Open(ctx, "in")
	if err != nil {
		return nil, false, nil
	}
	defer r.Release()
	g, err := arrowio.ReadFrame(ctx, r, arrowio.Selection{ID: fit.ID, Features: fit.Columns, Keep: []string{}, OnInvalid: onInvalid},
		arrowio.WithFrameAllocator(env.Mem))
	if err != nil {
		return nil, false, err
	}
	defer g.Release()
	fp := transforms.NewFingerprinter(fit.ID, fit.Columns)
	fp.Add(g)
	return fp.Fingerprint(), true, nil
}

// checkFingerprint refuses the table in (read as f) when its rows are not
// the rows the embedding emb was fitted on, as the embedding's provenance
// records them (fit, from the input record rec). It warns, and goes on,
// when the embedding records no fingerprint or the table cannot be read
// again to compute one.
func checkFingerprint(ctx context.Context, env *transforms.Env, emb string, rec *arrowio.InputInfo, f *arrowio.Frame, idOpt string, onInvalid arrowio.OnInvalid) error {
	in := f.Source.Path
	if rec == nil {
		env.Warn("%s records no fingerprint of the rows it was made from (an output of an older ordinate, or of another tool): whether %s holds those rows cannot be checked; its rows are matched by %s",
			emb, in, f.IDName)
		return nil
	}
	fit := rec.Fingerprint
	got, ok, err := rowsFingerprint(ctx, env, f, idOpt, fit, onInvalid)
	switch {
	case errors.Is(err, arrowio.ErrMissingColumn):
		return mismatch(emb, rec, in, fmt.Sprintf("it lacks a column the fit read: %v", err))
	case err != nil:
		return err
	case !ok:
		env.Warn("%s cannot be read twice (a stream): whether it holds the rows %s was made from cannot be checked", in, emb)
		return nil
	}
	env.Figure("rows_fingerprint", got.Hash)
	if got.Rows != fit.Rows || got.Hash != fit.Hash {
		return mismatch(emb, rec, in, fmt.Sprintf("it holds %d rows whose %s and %s hash to %s",
			got.Rows, identity(fit), columnsText(fit.Columns), short(got.Hash)))
	}
	env.Log.Info("rows checked", "embedding", emb, "in", in, "rows", got.Rows, "fingerprint", got.Hash)
	return nil
}

// mismatch is the error of a table that does not hold the rows an
// embedding was fitted on.
func mismatch(emb string, rec *arrowio.InputInfo, in, why string) error {
	fit := rec.Fingerprint
	return &arrowio.Error{File: in, Row: -1, Err: fmt.Errorf(
		"%w: %s was made from %d rows of %s (their %s and %s hash to %s), and %s does not hold them: %s; give the table the embedding was made from (for other rows, fit or apply on them first)",
		ErrNotFittedOn, emb, fit.Rows, rec.Path, identity(fit), columnsText(fit.Columns), short(fit.Hash), in, why)}
}

func identity(fp *arrowio.Fingerprint) string {
	if fp.ID == "" {
		return "row numbers"
	}
	return "ids (" + fp.ID + ")"
}

func columnsText(cols []string) string {
	if len(cols) > 8 {
		return fmt.Sprintf("features %s, … (%d columns)", strings.Join(cols[:8], ","), len(cols))
	}
	return "features " + strings.Join(cols, ",")
}

// short abbreviates a fingerprint hash for messages.
func short(h string) string {
	if i := strings.IndexByte(h, ':'); i >= 0 && len(h) > i+17 {
		return h[:i+17] + "…"
	}
	return h
}

// matchRows matches every row of the embedding to the row of in with the
// same id (compared as text, so that an int64 id matches the same number
// in a CSV), and returns, for each embedding row, its row in in. Both
// tables must hold the same ids, once each: ids of one missing from the
// other are an error naming how many, and the first few.
func matchRows(emb, in *arrowio.Frame) ([]int, error) {
	pos := make(map[string]int, in.N)
	for i := range in.N {
		id := in.ID.ValueStr(i)
		if j, dup := pos[id]; dup {
			return nil, &arrowio.Error{File: in.Source.Path, Column: in.IDName, Row: rowOf(in, i), ID: clip(id),
				Err: fmt.Errorf("%w: duplicate id (also row %d); ids must be unique to match rows", arrowio.ErrInvalidValue, rowOf(in, j))}
		}
		pos[id] = i
	}
	idx := make([]int, emb.N)
	seen := make([]bool, in.N)
	var missing []string
	nMissing := 0
	for i := range emb.N {
		id := emb.ID.ValueStr(i)
		j, ok := pos[id]
		switch {
		case !ok:
			nMissing++
			if len(missing) < 3 {
				missing = append(missing, clip(id))
			}
			continue
		case seen[j]:
			return nil, &arrowio.Error{File: emb.Source.Path, Column: emb.IDName, Row: rowOf(emb, i), ID: clip(id),
				Err: fmt.Errorf("%w: duplicate id in the embedding", arrowio.ErrInvalidValue)}
		}
		seen[j] = true
		idx[i] = j
	}
	var extra []string
	nExtra := 0
	for j, s := range seen {
		if !s {
			nExtra++
			if len(extra) < 3 {
				extra = append(extra, clip(in.ID.ValueStr(j)))
			}
		}
	}
	if nMissing == 0 && nExtra == 0 {
		return idx, nil
	}
	var why []string
	if nMissing > 0 {
		why = append(why, fmt.Sprintf("%d of the %d rows of %s have no row in %s (%s %s)",
			nMissing, emb.N, emb.Source.Path, in.Source.Path, in.IDName, examples(missing, nMissing)))
	}
	if nExtra > 0 {
		why = append(why, fmt.Sprintf("%d of the %d rows of %s have no row in %s (%s %s)",
			nExtra, in.N, in.Source.Path, emb.Source.Path, in.IDName, examples(extra, nExtra)))
	}
	hint := "give the table the embedding was made from, with the same id column"
	if emb.IDName == "row" {
		hint += " (rows are matched by row number when no id was given)"
	}
	if nMissing == 0 {
		hint += "; to score part of the rows, use the sample option"
	}
	return nil, &arrowio.Error{File: emb.Source.Path, Column: emb.IDName, Row: -1,
		Err: fmt.Errorf("%w: the rows do not match: %s; %s", ErrRowsDiffer, strings.Join(why, "; "), hint)}
}

// examples lists the first ids of count, with "…" when there are more.
func examples(ids []string, count int) string {
	quoted := make([]string, len(ids))
	for i, id := range ids {
		quoted[i] = strconv.Quote(id)
	}
	s := strings.Join(quoted, ", ")
	if count > len(ids) {
		s += ", …"
	}
	return s
}

// clip shortens an id for a message.
func clip(id string) string {
	const max = 64
	if len(id) <= max {
		return id
	}
	cut := max
	for cut > 0 && id[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
		cut--
	}
	return id[:cut] + "…"
}

// rowOf is the input row number of the frame's row i.
func rowOf(f *arrowio.Frame, i int) int64 {
	if i < len(f.Rows) {
		return f.Rows[i]
	}
	return int64(i)
}
