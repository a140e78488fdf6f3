//go:build amd64 && !purego

#include "textflag.h"

// One k step of the 6×8 micro-kernel: B's row of eight at boff(BX) in
// Y12, Y13; A's column of six broadcast one at a time; twelve independent
// FMA accumulators (Y0–Y11), so that each waits for eleven other FMAs
// before its next one: enough to cover the FMA latency at two per cycle.
#define STEP(aoff, boff) \
	VMOVUPD      boff(BX), Y12 \
	VMOVUPD      boff+32(BX), Y13 \
	VBROADCASTSD aoff(AX), Y14 \
	VFMADD231PD  Y12, Y14, Y0 \
	VFMADD231PD  Y13, Y14, Y1 \
	VBROADCASTSD aoff+8(AX), Y15 \
	VFMADD231PD  Y12, Y15, Y2 \
	VFMADD231PD  Y13, Y15, Y3 \
	VBROADCASTSD aoff+16(AX), Y14 \
	VFMADD231PD  Y12, Y14, Y4 \
	VFMADD231PD  Y13, Y14, Y5 \
	VBROADCASTSD aoff+24(AX), Y15 \
	VFMADD231PD  Y12, Y15, Y6 \
	VFMADD231PD  Y13, Y15, Y7 \
	VBROADCASTSD aoff+32(AX), Y14 \
	VFMADD231PD  Y12, Y14, Y8 \
	VFMADD231PD  Y13, Y14, Y9 \
	VBROADCASTSD aoff+40(AX), Y15 \
	VFMADD231PD  Y12, Y15, Y10 \
	VFMADD231PD  Y13, Y15, Y11

// ROWADD(y0, y1): C's row at DX += alpha·(y0, y1), with a separate
// multiply and add (the rounding of the Go edge path); then the next row.
#define ROWADD(y0, y1) \
	VMULPD  Y14, y0, y0 \
	VADDPD  (DX), y0, y0 \
	VMOVUPD y0, (DX) \
	VMULPD  Y14, y1, y1 \
	VADDPD  32(DX), y1, y1 \
	VMOVUPD y1, 32(DX) \
	ADDQ    R9, DX

// ROWSET(y0, y1): C's row at DX = alpha·(y0, y1); then the next row.
#define ROWSET(y0, y1) \
	VMULPD  Y14, y0, y0 \
	VMOVUPD y0, (DX) \
	VMULPD  Y14, y1, y1 \
	VMOVUPD y1, 32(DX) \
	ADDQ    R9, DX

// func gemmKernel6x8CAVX2(k int, a, b, c *float64, ldc int, alpha float64, store bool)
//
// The micro-kernel: a whole 6×8 tile of C updated in place,
// C[i, j] += alpha·Σ_l a[l*6+i]·b[l*8+j] over the packed panels (or = when
// store), with rows ldc bytes apart.
TEXT ·gemmKernel6x8CAVX2(SB), NOSPLIT, $0-49
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R9
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	MOVQ CX, R8
	SHRQ $1, R8
	JZ   codd

cpairs:
	STEP(0, 0)
	STEP(48, 64)
	ADDQ $96, AX
	ADDQ $128, BX
	DECQ R8
	JNZ  cpairs

codd:
	ANDQ $1, CX
	JZ   cwrite
	STEP(0, 0)

cwrite:
	VBROADCASTSD alpha+40(FP), Y14
	MOVBLZX      store+48(FP), R10
	TESTQ        R10, R10
	JNZ          cset
	ROWADD(Y0, Y1)
	ROWADD(Y2, Y3)
	ROWADD(Y4, Y5)
	ROWADD(Y6, Y7)
	ROWADD(Y8, Y9)
	ROWADD(Y10, Y11)
	VZEROUPPER
	RET

cset:
	ROWSET(Y0, Y1)
	ROWSET(Y2, Y3)
	ROWSET(Y4, Y5)
	ROWSET(Y6, Y7)
	ROWSET(Y8, Y9)
	ROWSET(Y10, Y11)
	VZEROUPPER
	RET

// func dotAxpyAVX2(a, x, y *float64, blocks int, xr float64) float64
//
// Over 16·blocks elements: returns Σ a_i·x_i (four FMA chains, added
// pairwise at the end) and sets y_i += a_i·xr (FMA), reading each a_i once:
// the two halves of a symmetric matrix–vector product from one triangle.
TEXT ·dotAxpyAVX2(SB), NOSPLIT, $0-48
	MOVQ         a+0(FP), SI
	MOVQ         x+8(FP), DI
	MOVQ         y+16(FP), DX
	MOVQ         blocks+24(FP), CX
	VBROADCASTSD xr+32(FP), Y15
	VXORPD       Y0, Y0, Y0
	VXORPD       Y1, Y1, Y1
	VXORPD       Y2, Y2, Y2
	VXORPD       Y3, Y3, Y3
	TESTQ        CX, CX
	JZ           dadone

daloop:
	VMOVUPD     (SI), Y4
	VMOVUPD     32(SI), Y5
	VMOVUPD     64(SI), Y6
	VMOVUPD     96(SI), Y7
	VFMADD231PD (DI), Y4, Y0
	VFMADD231PD 32(DI), Y5, Y1
	VFMADD231PD 64(DI), Y6, Y2
	VFMADD231PD 96(DI), Y7, Y3
	VMOVUPD     (DX), Y8
	VMOVUPD     32(DX), Y9
	VMOVUPD     64(DX), Y10
	VMOVUPD     96(DX), Y11
	VFMADD231PD Y15, Y4, Y8
	VFMADD231PD Y15, Y5, Y9
	VFMADD231PD Y15, Y6, Y10
	VFMADD231PD Y15, Y7, Y11
	VMOVUPD     Y8, (DX)
	VMOVUPD     Y9, 32(DX)
	VMOVUPD     Y10, 64(DX)
	VMOVUPD     Y11, 96(DX)
	ADDQ        $128, SI
	ADDQ        $128, DI
	ADDQ        $128, DX
	DECQ        CX
	JNZ         daloop

dadone:
	VADDPD       Y1, Y0, Y0
	VADDPD       Y3, Y2, Y2
	VADDPD       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VPERMILPD    $1, X0, X1
	VADDSD       X1, X0, X0
	VZEROUPPER
	MOVSD        X0, ret+40(FP)
	RET

// One k step of the AVX-512 6×8 micro-kernel: B's row of eight at boff(BX)
// in one Z register, A's column of six broadcast one at a time, six
// accumulators (Z0–Z5). Each element of C sums its products in k order
// with one fused multiply-add each, as the AVX2 kernel does: the same bits.
#define STEP512(aoff, boff) \
	VMOVUPD      boff(BX), Z12 \
	VBROADCASTSD aoff(AX), Z14 \
	VFMADD231PD  Z12, Z14, Z0 \
	VBROADCASTSD aoff+8(AX), Z15 \
	VFMADD231PD  Z12, Z15, Z1 \
	VBROADCASTSD aoff+16(AX), Z16 \
	VFMADD231PD  Z12, Z16, Z2 \
	VBROADCASTSD aoff+24(AX), Z17 \
	VFMADD231PD  Z12, Z17, Z3 \
	VBROADCASTSD aoff+32(AX), Z18 \
	VFMADD231PD  Z12, Z18, Z4 \
	VBROADCASTSD aoff+40(AX), Z19 \
	VFMADD231PD  Z12, Z19, Z5

#define ROWADD512(z) \
	VMULPD  Z14, z, z \
	VADDPD  (DX), z, z \
	VMOVUPD z, (DX) \
	ADDQ    R9, DX

#define ROWSET512(z) \
	VMULPD  Z14, z, z \
	VMOVUPD z, (DX) \
	ADDQ    R9, DX

// func gemmKernel6x8CAVX512(k int, a, b, c *float64, ldc int, alpha float64, store bool)
TEXT ·gemmKernel6x8CAVX512(SB), NOSPLIT, $0-49
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R9
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	MOVQ CX, R8
	SHRQ $1, R8
	JZ   zodd

zpairs:
	STEP512(0, 0)
	STEP512(48, 64)
	ADDQ $96, AX
	ADDQ $128, BX
	DECQ R8
	JNZ  zpairs

zodd:
	ANDQ $1, CX
	JZ   zwrite
	STEP512(0, 0)

zwrite:
	VBROADCASTSD alpha+40(FP), Z14
	MOVBLZX      store+48(FP), R10
	TESTQ        R10, R10
	JNZ          zset
	ROWADD512(Z0)
	ROWADD512(Z1)
	ROWADD512(Z2)
	ROWADD512(Z3)
	ROWADD512(Z4)
	ROWADD512(Z5)
	VZEROUPPER
	RET

zset:
	ROWSET512(Z0)
	ROWSET512(Z1)
	ROWSET512(Z2)
	ROWSET512(Z3)
	ROWSET512(Z4)
	ROWSET512(Z5)
	VZEROUPPER
	RET

// One k step of the AVX-512 6×16 micro-kernel: two packed 8-column strips
// of B (at boff(BX) and boff(BX)(R11*1)) in Z12 and Z13, A's column of six
// broadcast one at a time, twelve accumulators (Z0–Z5 the first strip's
// columns, Z6–Z11 the second's). Twelve independent fused multiply-adds
// per step cover the FMA units' latency, which the six of the 6×8 kernel
// do not; each element still sums its products in k order, one fused
// multiply-add each: the 6×8 kernels' bits.
#define STEP512W(aoff, boff) \
	VMOVUPD      boff(BX), Z12 \
	VMOVUPD      boff(BX)(R11*1), Z13 \
	VBROADCASTSD aoff(AX), Z14 \
	VFMADD231PD  Z12, Z14, Z0 \
	VFMADD231PD  Z13, Z14, Z6 \
	VBROADCASTSD aoff+8(AX), Z15 \
	VFMADD231PD  Z12, Z15, Z1 \
	VFMADD231PD  Z13, Z15, Z7 \
	VBROADCASTSD aoff+16(AX), Z16 \
	VFMADD231PD  Z12, Z16, Z2 \
	VFMADD231PD  Z13, Z16, Z8 \
	VBROADCASTSD aoff+24(AX), Z17 \
	VFMADD231PD  Z12, Z17, Z3 \
	VFMADD231PD  Z13, Z17, Z9 \
	VBROADCASTSD aoff+32(AX), Z18 \
	VFMADD231PD  Z12, Z18, Z4 \
	VFMADD231PD  Z13, Z18, Z10 \
	VBROADCASTSD aoff+40(AX), Z19 \
	VFMADD231PD  Z12, Z19, Z5 \
	VFMADD231PD  Z13, Z19, Z11

#define ROWADD512W(z, y) \
	VMULPD  Z14, z, z \
	VADDPD  (DX), z, z \
	VMOVUPD z, (DX) \
	VMULPD  Z14, y, y \
	VADDPD  64(DX), y, y \
	VMOVUPD y, 64(DX) \
	ADDQ    R9, DX

#define ROWSET512W(z, y) \
	VMULPD  Z14, z, z \
	VMOVUPD z, (DX) \
	VMULPD  Z14, y, y \
	VMOVUPD y, 64(DX) \
	ADDQ    R9, DX

// func gemmKernel6x16CAVX512(k int, a, b *float64, bstride int, c *float64, ldc int, alpha float64, store bool)
// bstride is the byte distance from the first strip of B to the second.
TEXT ·gemmKernel6x16CAVX512(SB), NOSPLIT, $0-57
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ bstride+24(FP), R11
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R9
	// Fetch the tile of C while the products run: its rows lie a stride
	// apart, where the hardware prefetcher does not follow.
	MOVQ DX, R12
	PREFETCHT0 (R12)
	PREFETCHT0 64(R12)
	ADDQ R9, R12
	PREFETCHT0 (R12)
	PREFETCHT0 64(R12)
	ADDQ R9, R12
	PREFETCHT0 (R12)
	PREFETCHT0 64(R12)
	ADDQ R9, R12
	PREFETCHT0 (R12)
	PREFETCHT0 64(R12)
	ADDQ R9, R12
	PREFETCHT0 (R12)
	PREFETCHT0 64(R12)
	ADDQ R9, R12
	PREFETCHT0 (R12)
	PREFETCHT0 64(R12)
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	VPXORQ Z8, Z8, Z8
	VPXORQ Z9, Z9, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11
	MOVQ CX, R8
	SHRQ $1, R8
	JZ   wodd

wpairs:
	STEP512W(0, 0)
	STEP512W(48, 64)
	ADDQ $96, AX
	ADDQ $128, BX
	DECQ R8
	JNZ  wpairs

wodd:
	ANDQ $1, CX
	JZ   wwrite
	STEP512W(0, 0)

wwrite:
	VBROADCASTSD alpha+48(FP), Z14
	MOVBLZX      store+56(FP), R10
	TESTQ        R10, R10
	JNZ          wset
	ROWADD512W(Z0, Z6)
	ROWADD512W(Z1, Z7)
	ROWADD512W(Z2, Z8)
	ROWADD512W(Z3, Z9)
	ROWADD512W(Z4, Z10)
	ROWADD512W(Z5, Z11)
	VZEROUPPER
	RET

wset:
	ROWSET512W(Z0, Z6)
	ROWSET512W(Z1, Z7)
	ROWSET512W(Z2, Z8)
	ROWSET512W(Z3, Z9)
	ROWSET512W(Z4, Z10)
	ROWSET512W(Z5, Z11)
	VZEROUPPER
	RET
