package tsne

// attract2 returns Σ_e val_e w_e (y_i − y_col_e) in two dimensions, with
// w = 1/(1 + d²) and (y0, y1) = y_i. Entry e adds to lane e%4 of four
// partial sums per coordinate, which are added as
// (l0 + l1) + (l2 + l3): the lanes of the AVX2 loop (attract_amd64.s),
// which divides four entries at once. The Go loop below keeps the same
// lanes and the same roundings (no fused multiply-add: float64()
// conversions stop the compiler from fusing), so both give the same bits.
func attract2(y []float64, col []int32, val []float64, y0, y1 float64) (float64, float64) {
	val = val[:len(col)]
	var lanes [8]float64 // coordinate 0 in lanes[0:4], 1 in lanes[4:8]
	blocks := len(col) / 4
	if blocks > 0 && attract2Blocks(&lanes, y, col, val, blocks, y0, y1) {
		col, val = col[4*blocks:], val[4*blocks:]
	} else {
		for ; len(col) >= 4; col, val = col[4:], val[4:] {
			attract2Entries(&lanes, y, col[:4], val[:4], y0, y1)
		}
	}
	attract2Entries(&lanes, y, col, val, y0, y1)
	return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]), (lanes[4] + lanes[5]) + (lanes[6] + lanes[7])
}

// attract2Entries adds up to four entries (one block, or the tail) to the
// lanes.
func attract2Entries(lanes *[8]float64, y []float64, col []int32, val []float64, y0, y1 float64) {
	for e, j := range col {
		d0, d1 := y0-y[2*j], y1-y[2*j+1]
		w := val[e] / (float64(float64(d0*d0)+float64(d1*d1)) + 1)
		lanes[e] += float64(w * d0)
		lanes[4+e] += float64(w * d1)
	}
}
