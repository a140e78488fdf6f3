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
// with a separate multiply and add (no FMA), as sqDistLanesGo rounds.
#define BLOCK(off) \
	VMOVUPD off(SI), Y1 \
	VSUBPD  off(DX), Y1, Y1 \
	VMULPD  Y1, Y1, Y1 \
	VADDPD  Y1, Y0, Y0

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
	VMULPD  Y1, Y1, Y1 \
	VADDPD  Y1, Y0, Y0

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
