package linear

import "fmt"

// Warning text shared with bvp: the stages that fill axes beyond the
// informative ones say so in the same words.

// FillSentence completes a warning about filled axes: why, then which axes
// (informative+1 … d, 1-based) are directions of largest data variance.
func FillSentence(why string, informative, d int) string {
	them := "them"
	if informative == 1 {
		them = "it"
	}
	return fmt.Sprintf("%s; %s the direction%s of largest data variance orthogonal to %s",
		why, AxisRange(informative+1, d), Plural(d-informative), them)
}

// AxisRange is "axis 3 is" or "axes 3–5 are" (1-based).
func AxisRange(from, to int) string {
	if from == to {
		return fmt.Sprintf("axis %d is", from)
	}
	return fmt.Sprintf("axes %d–%d are", from, to)
}

// AxisWord is "axis" for one, "axes" otherwise.
func AxisWord(n int) string {
	if n == 1 {
		return "axis"
	}
	return "axes"
}

// Plural is "" for one, "s" otherwise.
func Plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
