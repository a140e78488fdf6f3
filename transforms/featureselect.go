package transforms

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ordinate/ordinate/arrowio"
)

// maxNamed bounds the column names one line of a feature report lists.
const maxNamed = 40

// reportDefaultFeatures says, in one line, what the default feature set of
// the input at path took (used) and left out, and why (the columns the
// name heuristic guessed, then those the plan left out: the id, the label,
// kept, excluded, not numeric). The line is a warning when the heuristic
// left a numeric column out, a guess the user should see; otherwise it is
// logged.
func (env *Env) reportDefaultFeatures(path string, used []string, guessed, leftOut []arrowio.Omitted) {
	all := append(guessed[:len(guessed):len(guessed)], leftOut...)
	if len(all) == 0 {
		return
	}
	parts := make([]string, 0, min(len(all), maxNamed))
	for _, o := range all[:min(len(all), maxNamed)] {
		parts = append(parts, strconv.Quote(o.Name)+" "+o.Why)
	}
	msg := fmt.Sprintf("%s: default features (%d): %s; left out: %s", path, len(used), nameList(used), strings.Join(parts, ", "))
	if len(all) > maxNamed {
		msg += fmt.Sprintf(", … (%d more)", len(all)-maxNamed)
	}
	if len(guessed) == 0 {
		env.Log.Info(msg)
		return
	}
	env.Warn("%s; name a column in features to use it, or leave others out with exclude", msg)
}

// nameList joins at most maxNamed names, saying how many more there are.
func nameList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	s := strings.Join(names[:min(len(names), maxNamed)], ", ")
	if len(names) > maxNamed {
		s += fmt.Sprintf(", … (%d more)", len(names)-maxNamed)
	}
	return s
}

// maxScaleRatio is the largest ratio of two features' standard deviations
// that unstandardised features pass without a warning: beyond it the
// narrower feature holds less than 1e-4 of a squared distance. (It was
// 1e3, which palmerpenguins passed with body_mass_g's 802 beside
// bill_depth_mm's 1.97 and year's 0.81: maps of body mass alone.)
const maxScaleRatio = 100

// scaleGap returns a warning when the standard deviations of the columns
// of the n×k row-major z (named names: unstandardised features, after
// CheckRange) differ by more than a factor maxScaleRatio, naming the
// largest and the smallest; otherwise "". Distances between such rows are
// those of the largest column alone.
func scaleGap(z []float64, n int, names []string) string {
	k := len(names)
	if k < 2 || n < 2 {
		return ""
	}
	sd := make([]float64, k)
	mean := make([]float64, k)
	for i := range n {
		for j, v := range z[i*k : (i+1)*k] {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	for i := range n {
		for j, v := range z[i*k : (i+1)*k] {
			d := v - mean[j]
			sd[j] += d * d
		}
	}
	for j := range sd {
		sd[j] = math.Sqrt(sd[j] / float64(n-1))
	}
	return ScaleGap(sd, names)
}

// ScaleGap is scaleGap from the columns' standard deviations sd (for a fit
// from statistics, which has no rows).
func ScaleGap(sd []float64, names []string) string {
	if len(sd) < 2 {
		return ""
	}
	hi, lo := 0, 0
	for j := range sd {
		if sd[j] > sd[hi] {
			hi = j
		}
		if sd[j] < sd[lo] {
			lo = j
		}
	}
	if !(sd[hi] > maxScaleRatio*sd[lo]) {
		return ""
	}
	return fmt.Sprintf("the features' scales differ by a factor of %.3g and they are not standardised: %q has standard deviation %.4g, %q %.4g, so distances are mostly those of the widest features; standardise them (standardize) or rescale the columns",
		sd[hi]/sd[lo], names[hi], sd[hi], names[lo], sd[lo])
}
