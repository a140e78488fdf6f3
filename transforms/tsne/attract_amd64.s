//go:build amd64 && !purego

#include "textflag.h"

DATA attractone<>+0(SB)/8, $1.0
GLOBL attractone<>(SB), RODATA|NOPTR, $8

// func attract2AVX2(lanes *[8]float64, y *float64, n int, col *int32, val *float64, blocks int, y0, y1 float64) (ok bool)
//
// Four entries a block: their points' (y_j0, y_j1) pairs are loaded into
// the halves of two registers (entries 0 and 2, 1 and 3) and unpacked into
// one register per coordinate, lane e for entry e; then
// d = y_i − y_j, w = v / ((d0·d0 + d1·d1) + 1), lanes += w·d, no fused
// operations, as attract2Entries computes. A column outside [0, n) stops
// it with ok = false and the lanes unchanged.
TEXT ·attract2AVX2(SB), NOSPLIT, $0-65
	MOVQ    lanes+0(FP), R9
	MOVQ    y+8(FP), SI
	MOVQ    n+16(FP), R12
	MOVQ    col+24(FP), DI
	MOVQ    val+32(FP), DX
	MOVQ    blocks+40(FP), CX
	VBROADCASTSD y0+48(FP), Y8
	VBROADCASTSD y1+56(FP), Y9
	VBROADCASTSD attractone<>(SB), Y12
	VMOVUPD (R9), Y10
	VMOVUPD 32(R9), Y11

loop:
	MOVLQSX 0(DI), AX
	MOVLQSX 4(DI), BX
	MOVLQSX 8(DI), R10
	MOVLQSX 12(DI), R11
	CMPQ    AX, R12
	JAE     bad
	CMPQ    BX, R12
	JAE     bad
	CMPQ    R10, R12
	JAE     bad
	CMPQ    R11, R12
	JAE     bad
	SHLQ    $4, AX
	SHLQ    $4, BX
	SHLQ    $4, R10
	SHLQ    $4, R11
	VMOVUPD (SI)(AX*1), X0
	VINSERTF128 $1, (SI)(R10*1), Y0, Y0
	VMOVUPD (SI)(BX*1), X1
	VINSERTF128 $1, (SI)(R11*1), Y1, Y1
	VUNPCKLPD Y1, Y0, Y2
	VUNPCKHPD Y1, Y0, Y3
	VSUBPD  Y2, Y8, Y2
	VSUBPD  Y3, Y9, Y3
	VMULPD  Y2, Y2, Y4
	VMULPD  Y3, Y3, Y5
	VADDPD  Y5, Y4, Y4
	VADDPD  Y12, Y4, Y4
	VMOVUPD (DX), Y6
	VDIVPD  Y4, Y6, Y6
	VMULPD  Y6, Y2, Y2
	VMULPD  Y6, Y3, Y3
	VADDPD  Y2, Y10, Y10
	VADDPD  Y3, Y11, Y11
	ADDQ    $16, DI
	ADDQ    $32, DX
	DECQ    CX
	JNZ     loop

	VMOVUPD Y10, (R9)
	VMOVUPD Y11, 32(R9)
	VZEROUPPER
	MOVB    $1, ok+64(FP)
	RET

bad:
	VZEROUPPER
	MOVB    $0, ok+64(FP)
	RET
