package kernels

import (
	"fmt"
	"math"
)

// cmplxFFT is an unnormalised complex DFT of one length n = 2^a·3^b·5^c,
// X_k = Σ_j x_j·e^{−2πijk/n}, by the Stockham autosort algorithm: one pass
// per radix (4s first, then 2, 3, 5), each reading one buffer and writing
// the other in order, so no bit reversal and unit-stride inner loops. It
// is several times as fast as gonum's dsp/fourier (FFTPACK) at the grid
// lengths of t-SNE's interpolation (BenchmarkCmplxFFT; BENCHMARKS.md,
// "Kernels"). Not safe for concurrent use: it owns its work buffer.
type cmplxFFT struct {
	n       int
	radices []int
	tw      [][]complex128 // per pass: tw[p·(r−1)+u−1] = e^{−2πi·p·u/len}
	work    []complex128
}

func newCmplxFFT(n int) *cmplxFFT {
	f := &cmplxFFT{n: n, work: make([]complex128, n)}
	rem := n
	for _, r := range [...]int{4, 2, 3, 5} {
		for rem%r == 0 && rem > 1 {
			f.radices = append(f.radices, r)
			rem /= r
		}
	}
	if rem != 1 || n < 1 {
		panic(fmt.Sprintf("kernels: FFT length %d has a prime factor above 5", n))
	}
	length := n
	for _, r := range f.radices {
		m := length / r
		tw := make([]complex128, m*(r-1))
		for p := range m {
			for u := 1; u < r; u++ {
				s, c := math.Sincos(-2 * math.Pi * float64(p*u) / float64(length))
				tw[p*(r-1)+u-1] = complex(c, s)
			}
		}
		f.tw = append(f.tw, tw)
		length = m
	}
	return f
}

// forward replaces x (length n) by its DFT.
func (f *cmplxFFT) forward(x []complex128) {
	x = x[:f.n]
	src, dst := x, f.work
	length, s := f.n, 1
	for pass, r := range f.radices {
		m := length / r
		switch r {
		case 4:
			radix4(dst, src, m, s, f.tw[pass])
		case 2:
			radix2(dst, src, m, s, f.tw[pass])
		case 3:
			radix3(dst, src, m, s, f.tw[pass])
		case 5:
			radix5(dst, src, m, s, f.tw[pass])
		}
		src, dst = dst, src
		length, s = m, s*r
	}
	if len(f.radices)%2 == 1 {
		copy(x, src)
	}
}

// inverse replaces x by its unnormalised inverse DFT, n·x for x = forward's
// input: conj ∘ forward ∘ conj.
func (f *cmplxFFT) inverse(x []complex128) {
	x = x[:f.n]
	for i, v := range x {
		x[i] = complex(real(v), -imag(v))
	}
	f.forward(x)
	for i, v := range x {
		x[i] = complex(real(v), -imag(v))
	}
}

// The passes: y[q + s·(r·p + u)] = w^{p·u}·Σ_t x[q + s·(p + t·m)]·ω_r^{t·u}
// for p < m, q < s, with w = e^{−2πi/(r·m)} and ω_r = e^{−2πi/r}.

func radix2(y, x []complex128, m, s int, tw []complex128) {
	for p := range m {
		w := tw[p]
		x0, x1 := x[s*p:s*p+s], x[s*(p+m):s*(p+m)+s]
		y0, y1 := y[s*2*p:s*2*p+s], y[s*(2*p+1):s*(2*p+1)+s]
		for q := range x0 {
			a, b := x0[q], x1[q]
			y0[q] = a + b
			y1[q] = (a - b) * w
		}
	}
}

func radix4(y, x []complex128, m, s int, tw []complex128) {
	if s == 1 {
		radix4First(y, x, m, tw)
		return
	}
	for p := range m {
		w1, w2, w3 := tw[3*p], tw[3*p+1], tw[3*p+2]
		x0, x1 := x[s*p:s*p+s], x[s*(p+m):s*(p+m)+s]
		x2, x3 := x[s*(p+2*m):s*(p+2*m)+s], x[s*(p+3*m):s*(p+3*m)+s]
		o := 4 * s * p
		y0, y1, y2, y3 := y[o:o+s], y[o+s:o+2*s], y[o+2*s:o+3*s], y[o+3*s:o+4*s]
		for q := range x0 {
			a0, a1, a2, a3 := x0[q], x1[q], x2[q], x3[q]
			t0, t1, t2, t3 := a0+a2, a0-a2, a1+a3, a1-a3
			t3 = complex(imag(t3), -real(t3)) // −i·t3
			y0[q] = t0 + t2
			y1[q] = (t1 + t3) * w1
			y2[q] = (t0 - t2) * w2
			y3[q] = (t1 - t3) * w3
		}
	}
}

// radix4First is radix4's first pass (s = 1), without the per-p slices
// that cost more than its one butterfly.
func radix4First(y, x []complex128, m int, tw []complex128) {
	x0, x1, x2, x3 := x[:m], x[m:2*m], x[2*m:3*m], x[3*m:4*m]
	y = y[:4*m]
	tw = tw[:3*m]
	for p := range x0 {
		a0, a1, a2, a3 := x0[p], x1[p], x2[p], x3[p]
		t0, t1, t2, t3 := a0+a2, a0-a2, a1+a3, a1-a3
		t3 = complex(imag(t3), -real(t3))
		o := y[4*p : 4*p+4]
		w := tw[3*p : 3*p+3]
		o[0] = t0 + t2
		o[1] = (t1 + t3) * w[0]
		o[2] = (t0 - t2) * w[1]
		o[3] = (t1 - t3) * w[2]
	}
}

func radix3(y, x []complex128, m, s int, tw []complex128) {
	const h = 0.86602540378443864676 // sin(2π/3)
	for p := range m {
		w1, w2 := tw[2*p], tw[2*p+1]
		x0, x1, x2 := x[s*p:s*p+s], x[s*(p+m):s*(p+m)+s], x[s*(p+2*m):s*(p+2*m)+s]
		o := 3 * s * p
		y0, y1, y2 := y[o:o+s], y[o+s:o+2*s], y[o+2*s:o+3*s]
		for q := range x0 {
			a0, a1, a2 := x0[q], x1[q], x2[q]
			sum, dif := a1+a2, a1-a2
			c := a0 - complex(0.5*real(sum), 0.5*imag(sum))
			d := complex(h*imag(dif), -h*real(dif)) // −i·h·dif
			y0[q] = a0 + sum
			y1[q] = (c + d) * w1
			y2[q] = (c - d) * w2
		}
	}
}

func radix5(y, x []complex128, m, s int, tw []complex128) {
	const (
		c1 = 0.30901699437494742410  // cos(2π/5)
		c2 = -0.80901699437494742410 // cos(4π/5)
		s1 = 0.95105651629515357212  // sin(2π/5)
		s2 = 0.58778525229247312917  // sin(4π/5)
	)
	for p := range m {
		w := tw[4*p : 4*p+4]
		x0, x1 := x[s*p:s*p+s], x[s*(p+m):s*(p+m)+s]
		x2, x3, x4 := x[s*(p+2*m):s*(p+2*m)+s], x[s*(p+3*m):s*(p+3*m)+s], x[s*(p+4*m):s*(p+4*m)+s]
		o := 5 * s * p
		y0, y1, y2, y3, y4 := y[o:o+s], y[o+s:o+2*s], y[o+2*s:o+3*s], y[o+3*s:o+4*s], y[o+4*s:o+5*s]
		for q := range x0 {
			a0, a1, a2, a3, a4 := x0[q], x1[q], x2[q], x3[q], x4[q]
			s14, d14, s23, d23 := a1+a4, a1-a4, a2+a3, a2-a3
			r1 := a0 + complex(c1*real(s14)+c2*real(s23), c1*imag(s14)+c2*imag(s23))
			r2 := a0 + complex(c2*real(s14)+c1*real(s23), c2*imag(s14)+c1*imag(s23))
			i1 := complex(s1*real(d14)+s2*real(d23), s1*imag(d14)+s2*imag(d23))
			i2 := complex(s2*real(d14)-s1*real(d23), s2*imag(d14)-s1*imag(d23))
			i1 = complex(imag(i1), -real(i1)) // −i·i1
			i2 = complex(imag(i2), -real(i2))
			y0[q] = a0 + s14 + s23
			y1[q] = (r1 + i1) * w[0]
			y2[q] = (r2 + i2) * w[1]
			y3[q] = (r2 - i2) * w[2]
			y4[q] = (r1 - i1) * w[3]
		}
	}
}

// realFFT is the DFT of n real values (n even, n/2 a length cmplxFFT
// takes) by one complex transform of n/2: the even samples as real parts,
// the odd as imaginary, separated after. Its spectrum holds the n/2 + 1
// coefficients X_0 … X_{n/2}, the rest being their conjugates.
type realFFT struct {
	n    int
	half *cmplxFFT
	tw   []complex128 // e^{−2πik/n}, k ≤ n/4
	z    []complex128
}

func newRealFFT(n int) *realFFT {
	if n < 2 || n%2 != 0 {
		panic(fmt.Sprintf("kernels: real FFT length %d is not even", n))
	}
	m := n / 2
	f := &realFFT{n: n, half: newCmplxFFT(m), tw: make([]complex128, m/2+1), z: make([]complex128, m)}
	for k := range f.tw {
		s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		f.tw[k] = complex(c, s)
	}
	return f
}

// twiddle returns e^{−2πik/n} for 0 ≤ k ≤ n/2 from the table up to n/4.
func (f *realFFT) twiddle(k int) complex128 {
	if k < len(f.tw) {
		return f.tw[k]
	}
	w := f.tw[f.n/2-k] // e^{−2πi(n/2−k)/n} = −conj(e^{−2πik/n})
	return complex(-real(w), imag(w))
}

// coefficients writes the n/2 + 1 coefficients of x (length n) to dst.
func (f *realFFT) coefficients(dst []complex128, x []float64) {
	m := f.n / 2
	dst, x = dst[:m+1], x[:f.n]
	z := f.z
	for j := range z {
		z[j] = complex(x[2*j], x[2*j+1])
	}
	f.half.forward(z)
	dst[0] = complex(real(z[0])+imag(z[0]), 0)
	dst[m] = complex(real(z[0])-imag(z[0]), 0)
	for k := 1; k <= m/2; k++ {
		a, b := z[k], z[m-k]
		bc := complex(real(b), -imag(b))
		ac := complex(real(a), -imag(a))
		even, odd := 0.5*(a+bc), 0.5*(a-bc)
		odd = complex(imag(odd), -real(odd)) // −i·(a − conj b)/2
		dst[k] = even + f.twiddle(k)*odd
		// X_{m−k} from the same pair with the roles swapped.
		even2, odd2 := 0.5*(b+ac), 0.5*(b-ac)
		odd2 = complex(imag(odd2), -real(odd2))
		dst[m-k] = even2 + f.twiddle(m-k)*odd2
	}
}

// sequence writes to dst (length n) the unnormalised inverse of the n/2 + 1
// coefficients c: n·x for c = coefficients(x). Only the real parts of c_0
// and c_{n/2} are used.
func (f *realFFT) sequence(dst []float64, c []complex128) {
	m := f.n / 2
	dst, c = dst[:f.n], c[:m+1]
	z := f.z
	for k := range m {
		a, b := c[k], c[m-k]
		bc := complex(real(b), -imag(b))
		even, odd := a+bc, a-bc
		w := f.twiddle(k)
		odd *= complex(real(w), -imag(w)) // e^{+2πik/n}
		z[k] = even + complex(-imag(odd), real(odd))
	}
	z[0] = complex(real(c[0])+real(c[m]), real(c[0])-real(c[m]))
	f.half.inverse(z)
	for j, v := range z {
		dst[2*j], dst[2*j+1] = real(v), imag(v)
	}
}
