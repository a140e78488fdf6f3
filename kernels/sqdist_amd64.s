//go:build amd64 && !purego

#include "textflag.h"

// Masks for a tail of r = 1, 2, 3 doubles, at offset (r−1)·32.
DATA tailmask<>+0(SB)/8, $0xffffffffffffffff
DATA tailmask<>+8(SB)/8, $0
DATA tailmask<>+16(SB)/8, $0
DATA tailmask<>+24(SB)/8, $0
DATA tailmask<>+32(SB)/8, $0xffffffffffffffff
DATA tailmask<>+40(SB)/8, $0xffffffffffffffff
DATA tailmask<>+48(SB)/8, $0
DATA tailmask<>+56(SB)/8, $0
DATA tailmask<>+64(SB)/8, $0xffffffffffffffff
DATA tailmask<>+72(SB)/8, $0xffffffffffffffff
DATA tailmask<>+80(SB)/8, $0xffffffffffffffff
DATA tailmask<>+88(SB)/8, $0
GLOBL tailmask<>(SB), RODATA|NOPTR, $96

// One block of four terms at byte offset off: Y0 += (a − b)², lane by lane,
// the square fused into the addition (one rounding), as sqDistLanesGo's
// math.FMA rounds.
#define BLOCK(off) \
	VMOVUPD off(SI), Y1 \
	VSUBPD  off(DX), Y1, Y1 \
	VFMADD231PD Y1, Y1, Y0

// TAIL adds the last CX (1…3) terms through a masked load, whose masked
// lanes read 0 and add (0 − 0)² = +0, which leaves a lane unchanged.
#define TAIL \
	LEAQ    tailmask<>(SB), R8 \
	DECQ    CX \
	SHLQ    $5, CX \
	VMOVDQU (R8)(CX*1), Y2 \
	VMASKMOVPD (SI), Y2, Y1 \
	VMASKMOVPD (DX), Y2, Y3 \
	VSUBPD  Y3, Y1, Y1 \
	VFMADD231PD Y1, Y1, Y0

// REDUCE sets X3 = (s0 + s1) + (s2 + s3) from the lanes of Y0.
#define REDUCE \
	VEXTRACTF128 $1, Y0, X2 \
	VHADDPD X0, X0, X3 \
	VHADDPD X2, X2, X4 \
	VADDSD  X4, X3, X3

// func sqDistLanesAVX2(s *[4]float64, a, b []float64)
TEXT ·sqDistLanesAVX2(SB), NOSPLIT, $0-56
	MOVQ    s+0(FP), DI
	MOVQ    a_base+8(FP), SI
	MOVQ    a_len+16(FP), CX
	MOVQ    b_base+32(FP), DX
	VMOVUPD (DI), Y0
	MOVQ    CX, BX
	SHRQ    $2, BX
	JZ      lanestail

lanesloop:
	BLOCK(0)
	ADDQ    $32, SI
	ADDQ    $32, DX
	DECQ    BX
	JNZ     lanesloop

lanestail:
	ANDQ    $3, CX
	JZ      lanesdone
	TAIL

lanesdone:
	VMOVUPD Y0, (DI)
	VZEROUPPER
	RET

// func sqDistBelowAVX2(a, b []float64, bound float64) (d float64, ok bool)
TEXT ·sqDistBelowAVX2(SB), NOSPLIT, $0-65
	MOVQ    a_base+0(FP), SI
	MOVQ    a_len+8(FP), CX
	MOVQ    b_base+24(FP), DX
	VMOVSD  bound+48(FP), X5
	VXORPD  Y0, Y0, Y0

	// Blocks of 16 terms while more than 16 remain, each followed by the
	// bound check of sqDistBelowGo.
below16:
	CMPQ    CX, $16
	JLE     belowrest
	BLOCK(0)
	BLOCK(32)
	BLOCK(64)
	BLOCK(96)
	ADDQ    $128, SI
	ADDQ    $128, DX
	SUBQ    $16, CX
	REDUCE
	VUCOMISD X5, X3
	JCC     belowfail      // partial ≥ bound (false when unordered)
	JMP     below16

belowrest:
	MOVQ    CX, BX
	SHRQ    $2, BX
	JZ      belowtail

belowloop:
	BLOCK(0)
	ADDQ    $32, SI
	ADDQ    $32, DX
	DECQ    BX
	JNZ     belowloop

belowtail:
	ANDQ    $3, CX
	JZ      belowdone
	TAIL

belowdone:
	REDUCE
	VMOVSD  X3, d+56(FP)
	VUCOMISD X3, X5
	SETHI   ok+64(FP)      // bound > d (false when unordered)
	VZEROUPPER
	RET

belowfail:
	MOVQ    $0, d+56(FP)
	MOVB    $0, ok+64(FP)
	VZEROUPPER
	RET

// func sqDistAVX2(a, b []float64) float64
TEXT ·sqDistAVX2(SB), NOSPLIT, $0-56
	MOVQ    a_base+0(FP), SI
	MOVQ    a_len+8(FP), CX
	MOVQ    b_base+24(FP), DX
	VXORPD  Y0, Y0, Y0
	MOVQ    CX, BX
	SHRQ    $2, BX
	JZ      sqtail

sqloop:
	BLOCK(0)
	ADDQ    $32, SI
	ADDQ    $32, DX
	DECQ    BX
	JNZ     sqloop

sqtail:
	ANDQ    $3, CX
	JZ      sqdone
	TAIL

sqdone:
	REDUCE
	VMOVSD  X3, ret+48(FP)
	VZEROUPPER
	RET

// Two distances from one row a at once, to b1 (Y0) and b2 (Y6): the two
// chains of additions overlap, where one chain alone waits on the add
// latency. Each lane sees the additions of sqDistLanesGo.
#define BLOCK2(off) \
	VMOVUPD off(SI), Y1 \
	VSUBPD  off(DX), Y1, Y8 \
	VSUBPD  off(DI), Y1, Y9 \
	VFMADD231PD Y8, Y8, Y0 \
	VFMADD231PD Y9, Y9, Y6

#define TAIL2 \
	LEAQ    tailmask<>(SB), R8 \
	DECQ    CX \
	SHLQ    $5, CX \
	VMOVDQU (R8)(CX*1), Y2 \
	VMASKMOVPD (SI), Y2, Y1 \
	VMASKMOVPD (DX), Y2, Y8 \
	VMASKMOVPD (DI), Y2, Y9 \
	VSUBPD  Y8, Y1, Y8 \
	VSUBPD  Y9, Y1, Y9 \
	VFMADD231PD Y8, Y8, Y0 \
	VFMADD231PD Y9, Y9, Y6

// REDUCE2 sets X3 and X11 to the sums of Y0 and Y6, as REDUCE.
#define REDUCE2 \
	REDUCE \
	VEXTRACTF128 $1, Y6, X10 \
	VHADDPD X6, X6, X11 \
	VHADDPD X10, X10, X12 \
	VADDSD  X12, X11, X11

// func sqDistAtMost2AVX2(a, b1, b2 []float64, bound1, bound2 float64) (d1, d2 float64, ok1, ok2 bool)
TEXT ·sqDistAtMost2AVX2(SB), NOSPLIT, $0-106
	MOVQ    a_base+0(FP), SI
	MOVQ    a_len+8(FP), CX
	MOVQ    b1_base+24(FP), DX
	MOVQ    b2_base+48(FP), DI
	VMOVSD  bound1+72(FP), X5
	VMOVSD  bound2+80(FP), X7
	VXORPD  Y0, Y0, Y0
	VXORPD  Y6, Y6, Y6
	MOVQ    $1, R9             // distance 1 still below its bound
	MOVQ    $1, R10            // distance 2

at16:
	CMPQ    CX, $16
	JLE     atrest
	BLOCK2(0)
	BLOCK2(32)
	BLOCK2(64)
	BLOCK2(96)
	ADDQ    $128, SI
	ADDQ    $128, DX
	ADDQ    $128, DI
	SUBQ    $16, CX
	REDUCE2
	VUCOMISD X3, X5
	JCC     keep1              // bound1 ≥ partial, or unordered
	MOVQ    $0, R9
keep1:
	VUCOMISD X11, X7
	JCC     keep2
	MOVQ    $0, R10
keep2:
	MOVQ    R9, R11
	ORQ     R10, R11
	JNZ     at16
	MOVQ    $0, d1+88(FP)
	MOVQ    $0, d2+96(FP)
	MOVB    $0, ok1+104(FP)
	MOVB    $0, ok2+105(FP)
	VZEROUPPER
	RET

atrest:
	MOVQ    CX, BX
	SHRQ    $2, BX
	JZ      attail

atloop:
	BLOCK2(0)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    BX
	JNZ     atloop

attail:
	ANDQ    $3, CX
	JZ      atdone
	TAIL2

atdone:
	REDUCE2
	VMOVSD  X3, d1+88(FP)
	VMOVSD  X11, d2+96(FP)
	VUCOMISD X3, X5
	SETCC   R12B               // bound1 ≥ d1 (false when unordered)
	ANDB    R9B, R12B
	MOVB    R12B, ok1+104(FP)
	VUCOMISD X11, X7
	SETCC   R12B
	ANDB    R10B, R12B
	MOVB    R12B, ok2+105(FP)
	VZEROUPPER
	RET

// PAIR4(breg, tmp, acc) adds the four terms (A − breg)² of the row in Y10
// to acc, lane by lane, the square fused into the addition.
#define PAIR4(breg, tmp, acc) \
	VSUBPD breg, Y10, tmp \
	VFMADD231PD tmp, tmp, acc

// func sqDist4x2AVX2(blocks int, a, b *float64, stride int, s *[32]float64)
//
// Adds to the lanes s the terms of the squared distances between rows a,
// a+stride, a+2·stride, a+3·stride and rows b, b+stride (stride in bytes)
// over their first 4·blocks terms: s[8r+4c : 8r+4c+4] for row r of a and row
// c of b, term k in lane k mod 4, as sqDistLanesGo adds them (so calls over
// consecutive runs of terms, each a multiple of four long, continue one sum).
TEXT ·sqDist4x2AVX2(SB), NOSPLIT, $0-40
	MOVQ blocks+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ stride+24(FP), R8
	MOVQ s+32(FP), DX
	LEAQ (SI)(R8*2), R9
	VMOVUPD 0(DX), Y0
	VMOVUPD 32(DX), Y1
	VMOVUPD 64(DX), Y2
	VMOVUPD 96(DX), Y3
	VMOVUPD 128(DX), Y4
	VMOVUPD 160(DX), Y5
	VMOVUPD 192(DX), Y6
	VMOVUPD 224(DX), Y7
	TESTQ CX, CX
	JZ    store4x2

loop4x2:
	VMOVUPD (DI), Y8
	VMOVUPD (DI)(R8*1), Y9
	VMOVUPD (SI), Y10
	PAIR4(Y8, Y11, Y0)
	PAIR4(Y9, Y12, Y1)
	VMOVUPD (SI)(R8*1), Y10
	PAIR4(Y8, Y13, Y2)
	PAIR4(Y9, Y14, Y3)
	VMOVUPD (R9), Y10
	PAIR4(Y8, Y11, Y4)
	PAIR4(Y9, Y12, Y5)
	VMOVUPD (R9)(R8*1), Y10
	PAIR4(Y8, Y13, Y6)
	PAIR4(Y9, Y14, Y7)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R9
	DECQ CX
	JNZ  loop4x2

store4x2:
	VMOVUPD Y0, 0(DX)
	VMOVUPD Y1, 32(DX)
	VMOVUPD Y2, 64(DX)
	VMOVUPD Y3, 96(DX)
	VMOVUPD Y4, 128(DX)
	VMOVUPD Y5, 160(DX)
	VMOVUPD Y6, 192(DX)
	VMOVUPD Y7, 224(DX)
	VZEROUPPER
	RET

// func sqDist32AVX2(a, b []float32) float32
TEXT ·sqDist32AVX2(SB), NOSPLIT, $0-52
	MOVQ    a_base+0(FP), SI
	MOVQ    a_len+8(FP), CX
	MOVQ    b_base+24(FP), DX
	VXORPS  Y0, Y0, Y0
	MOVQ    CX, BX
	SHRQ    $3, BX
	JZ      d32tail

d32loop:
	VMOVUPS (SI), Y1
	VSUBPS  (DX), Y1, Y1
	VMULPS  Y1, Y1, Y1
	VADDPS  Y1, Y0, Y0
	ADDQ    $32, SI
	ADDQ    $32, DX
	DECQ    BX
	JNZ     d32loop

d32tail:
	// Lanes 4…7 to X6 first: the scalar operations below clear the upper
	// half of Y0.
	VEXTRACTF128 $1, Y0, X6
	ANDQ    $7, CX
	JZ      d32reduce

d32tailloop:
	VMOVSS  (SI), X1
	VSUBSS  (DX), X1, X1
	VMULSS  X1, X1, X1
	VADDSS  X1, X0, X0
	ADDQ    $4, SI
	ADDQ    $4, DX
	DECQ    CX
	JNZ     d32tailloop

d32reduce:
	// ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
	VHADDPS X6, X0, X1
	VHADDPS X1, X1, X2
	VMOVSHDUP X2, X3
	VADDSS  X3, X2, X2
	VMOVSS  X2, ret+48(FP)
	VZEROUPPER
	RET

// func containsInt32AVX2(s []int32, v int32) bool
TEXT ·containsInt32AVX2(SB), NOSPLIT, $0-33
	MOVQ         s_base+0(FP), SI
	MOVQ         s_len+8(FP), CX
	MOVL         v+24(FP), AX
	VMOVD        AX, X0
	VPBROADCASTD X0, Y0
	MOVQ         CX, BX
	SHRQ         $4, BX
	JZ           c32eight

c32loop16:
	VPCMPEQD (SI), Y0, Y1
	VPCMPEQD 32(SI), Y0, Y2
	VPOR     Y1, Y2, Y1
	VPTEST   Y1, Y1
	JNZ      c32found
	ADDQ     $64, SI
	DECQ     BX
	JNZ      c32loop16

c32eight:
	TESTQ    $8, CX
	JZ       c32tail
	VPCMPEQD (SI), Y0, Y1
	VPTEST   Y1, Y1
	JNZ      c32found
	ADDQ     $32, SI

c32tail:
	ANDQ $7, CX
	JZ   c32none

c32tailloop:
	CMPL (SI), AX
	JEQ  c32found
	ADDQ $4, SI
	DECQ CX
	JNZ  c32tailloop

c32none:
	MOVB $0, ret+32(FP)
	VZEROUPPER
	RET

c32found:
	MOVB $1, ret+32(FP)
	VZEROUPPER
	RET

// Four distances from one row a at once, to the rows at DX, DI, R8 and R9,
// in Y0…Y3: four chains of additions in flight where the two-way kernel
// waits on the add latency. Each lane sees the additions of sqDistLanesGo.
#define BLOCK4(off) \
	VMOVUPD off(SI), Y4 \
	VSUBPD  off(DX), Y4, Y5 \
	VSUBPD  off(DI), Y4, Y6 \
	VSUBPD  off(R8), Y4, Y7 \
	VSUBPD  off(R9), Y4, Y8 \
	VFMADD231PD Y5, Y5, Y0 \
	VFMADD231PD Y6, Y6, Y1 \
	VFMADD231PD Y7, Y7, Y2 \
	VFMADD231PD Y8, Y8, Y3

// REDUCE4 sets Y11 to the four sums of Y0…Y3, each (s0 + s1) + (s2 + s3)
// as REDUCE adds them.
#define REDUCE4 \
	VHADDPD Y1, Y0, Y11 \
	VHADDPD Y3, Y2, Y12 \
	VPERM2F128 $0x20, Y12, Y11, Y13 \
	VPERM2F128 $0x31, Y12, Y11, Y14 \
	VADDPD  Y14, Y13, Y11

// func sqDistAtMost4AVX2(n int, a, b0, b1, b2, b3 *float64, bound, out *[4]float64) uint8
//
// Bit r of the result is sqDistAtMost(a, b_r, bound[r])'s ok, and out[r]
// its distance where ok. A distance stops counting once a partial sum
// after 16·j terms exceeds its bound (or is NaN), as in sqDistAtMostGo;
// the kernel returns when all four have.
TEXT ·sqDistAtMost4AVX2(SB), NOSPLIT, $0-65
	MOVQ    n+0(FP), CX
	MOVQ    a+8(FP), SI
	MOVQ    b0+16(FP), DX
	MOVQ    b1+24(FP), DI
	MOVQ    b2+32(FP), R8
	MOVQ    b3+40(FP), R9
	MOVQ    bound+48(FP), R10
	MOVQ    out+56(FP), R11
	VMOVUPD (R10), Y9
	VXORPD  Y0, Y0, Y0
	VXORPD  Y1, Y1, Y1
	VXORPD  Y2, Y2, Y2
	VXORPD  Y3, Y3, Y3
	MOVQ    $15, R12           // distances still at most their bounds

at4x16:
	CMPQ    CX, $16
	JLE     at4rest
	BLOCK4(0)
	BLOCK4(32)
	BLOCK4(64)
	BLOCK4(96)
	ADDQ    $128, SI
	ADDQ    $128, DX
	ADDQ    $128, DI
	ADDQ    $128, R8
	ADDQ    $128, R9
	SUBQ    $16, CX
	REDUCE4
	VCMPPD  $0x1d, Y11, Y9, Y12 // bound ≥ partial (false when unordered)
	VMOVMSKPD Y12, AX
	ANDQ    AX, R12
	JNZ     at4x16
	MOVB    $0, ret+64(FP)
	VZEROUPPER
	RET

at4rest:
	MOVQ    CX, BX
	SHRQ    $2, BX
	JZ      at4tail

at4loop:
	BLOCK4(0)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	ADDQ    $32, R8
	ADDQ    $32, R9
	DECQ    BX
	JNZ     at4loop

at4tail:
	ANDQ    $3, CX
	JZ      at4done
	LEAQ    tailmask<>(SB), R13
	DECQ    CX
	SHLQ    $5, CX
	VMOVDQU (R13)(CX*1), Y10
	VMASKMOVPD (SI), Y10, Y4
	VMASKMOVPD (DX), Y10, Y5
	VMASKMOVPD (DI), Y10, Y6
	VMASKMOVPD (R8), Y10, Y7
	VMASKMOVPD (R9), Y10, Y8
	VSUBPD  Y5, Y4, Y5
	VSUBPD  Y6, Y4, Y6
	VSUBPD  Y7, Y4, Y7
	VSUBPD  Y8, Y4, Y8
	VFMADD231PD Y5, Y5, Y0
	VFMADD231PD Y6, Y6, Y1
	VFMADD231PD Y7, Y7, Y2
	VFMADD231PD Y8, Y8, Y3

at4done:
	REDUCE4
	VMOVUPD Y11, (R11)
	VCMPPD  $0x1d, Y11, Y9, Y12
	VMOVMSKPD Y12, AX
	ANDQ    R12, AX
	MOVB    AX, ret+64(FP)
	VZEROUPPER
	RET
