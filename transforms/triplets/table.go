package triplets

import "github.com/ordinate/ordinate/transforms/table"

// Table is a columnar set of triplets: triplet r is ⟨I[r], J[r], K[r]⟩ under
// aspect Aspect[r]. All four columns have the same length. It is the
// in-memory form of the triplet table format of package table.
type Table = table.TripletTable
