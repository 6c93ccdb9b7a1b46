package cuda

// cuBLASLt (libcublasLt.so.13 or .12) through purego. Descriptors are
// opaque pointers; one plan (descriptors and the algorithm the heuristic
// chose) is kept per GEMM shape. Every call runs on the device's thread.

import (
	"fmt"
	"unsafe"

	"github.com/artist-rl/artist/policy/backend"
)

// cuBLAS and CUDA enum values (cublas_api.h, library_types.h, cublasLt.h).
const (
	cublasCompute32F     = 68 // CUBLAS_COMPUTE_32F: f32 products and sums, no TF32
	cudaR32F             = 0  // CUDA_R_32F
	cudaR16BF            = 14 // CUDA_R_16BF
	ltDescTransA         = 3  // CUBLASLT_MATMUL_DESC_TRANSA, int32
	ltDescTransB         = 4  // CUBLASLT_MATMUL_DESC_TRANSB, int32
	ltPrefMaxWorkspace   = 1  // CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, uint64
	ltPrefMinAlignA      = 5  // CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, uint32 (B, C, D follow)
	ltWorkspaceBytes     = 32 << 20
	cublasStatusSuccess  = 0
	heuristicResultBytes = 96 // sizeof(cublasLtMatmulHeuristicResult_t)
)

// cublasStatusNames are cublasStatus_t's names (cublas_api.h).
var cublasStatusNames = map[int32]string{
	1: "CUBLAS_STATUS_NOT_INITIALIZED", 3: "CUBLAS_STATUS_ALLOC_FAILED", 7: "CUBLAS_STATUS_INVALID_VALUE",
	8: "CUBLAS_STATUS_ARCH_MISMATCH", 11: "CUBLAS_STATUS_MAPPING_ERROR", 13: "CUBLAS_STATUS_EXECUTION_FAILED",
	14: "CUBLAS_STATUS_INTERNAL_ERROR", 15: "CUBLAS_STATUS_NOT_SUPPORTED", 16: "CUBLAS_STATUS_LICENSE_ERROR",
}

// heuristicResult mirrors cublasLtMatmulHeuristicResult_t: the algorithm
// (cublasLtMatmulAlgo_t, uint64_t data[8]), the workspace it needs, its
// status and wave count, four reserved ints.
type heuristicResult struct {
	algo          [8]uint64
	workspaceSize uint64 // size_t
	state         int32  // cublasStatus_t
	wavesCount    float32
	reserved      [4]int32
}

// The mirror must have the C struct's size; this fails to compile if not.
var _ [heuristicResultBytes - unsafe.Sizeof(heuristicResult{})]byte
var _ [unsafe.Sizeof(heuristicResult{}) - heuristicResultBytes]byte

// Precision selects the types of a product. F32 (the default) is f32
// throughout with CUBLAS_COMPUTE_32F, which agrees with the CPU backends
// to float32 rounding. BF16Inputs reads A and B as CUDA_R_16BF with
// CUBLAS_COMPUTE_32F (f32 products and sums) and an f32 C and D, one of
// cublasLtMatmul's documented type combinations: the products of compute
// dtype bf16, whose operands MatMul rounds into bfloat16 scratch first.
type Precision int

// The precisions.
const (
	F32 Precision = iota
	BF16Inputs
)

// ltTypes are the cudaDataType of A and B for p; C, D and the scale are
// CUDA_R_32F and the compute type CUBLAS_COMPUTE_32F for both.
func ltTypes(p Precision) (ab int32) {
	if p == BF16Inputs {
		return cudaR16BF
	}
	return cudaR32F
}

// cublasLt holds the library's entry points and its handle.
type cublasLt struct {
	lib    *backend.Library
	handle uintptr

	create, descCreate, descSetAttr, layoutCreate          uintptr
	prefCreate, prefSetAttr, heuristic, matmul, getVersion uintptr
	prefDestroy                                            uintptr
}

// loadCublasLt opens the library from candidates and resolves its entry
// points; the handle is made later, on the device's thread.
func loadCublasLt(candidates []string) (*cublasLt, error) {
	lib, err := loadFirst(candidates)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoCuBLASLt, err)
	}
	lt := &cublasLt{lib: lib}
	for _, s := range []struct {
		fn   *uintptr
		name string
	}{
		{&lt.create, "cublasLtCreate"}, {&lt.descCreate, "cublasLtMatmulDescCreate"},
		{&lt.descSetAttr, "cublasLtMatmulDescSetAttribute"}, {&lt.layoutCreate, "cublasLtMatrixLayoutCreate"},
		{&lt.prefCreate, "cublasLtMatmulPreferenceCreate"}, {&lt.prefSetAttr, "cublasLtMatmulPreferenceSetAttribute"},
		{&lt.heuristic, "cublasLtMatmulAlgoGetHeuristic"}, {&lt.matmul, "cublasLtMatmul"},
		{&lt.getVersion, "cublasLtGetVersion"}, {&lt.prefDestroy, "cublasLtMatmulPreferenceDestroy"},
	} {
		if *s.fn, err = lib.Symbol(s.name); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNoCuBLASLt, err)
		}
	}
	return lt, nil
}

// check turns the cublasStatus_t r of call into nil or an error.
func (lt *cublasLt) check(call string, r uintptr) error {
	code := int32(r)
	if code == cublasStatusSuccess {
		return nil
	}
	name := cublasStatusNames[code]
	if name == "" {
		name = fmt.Sprintf("cublasStatus %d", code)
	}
	return fmt.Errorf("cuda: %s: %s", call, name)
}

// start makes the handle.
func (lt *cublasLt) start() error {
	return lt.check("cublasLtCreate", sys(lt.create, uintptr(unsafe.Pointer(&lt.handle))))
}

// preference makes the heuristic's preference for operands aligned to
// k.align bytes (A, B, C; D is C) within the workspace. The heuristic
// assumes 256-byte alignment unless told, and may pick an algorithm
// that then fails on a tensor view at a smaller offset.
func (lt *cublasLt) preference(k planKey) (uintptr, error) {
	var pref uintptr
	if err := lt.check("cublasLtMatmulPreferenceCreate", sys(lt.prefCreate, uintptr(unsafe.Pointer(&pref)))); err != nil {
		return 0, err
	}
	ws := uint64(ltWorkspaceBytes)
	if err := lt.check("cublasLtMatmulPreferenceSetAttribute",
		sys(lt.prefSetAttr, pref, ltPrefMaxWorkspace, uintptr(unsafe.Pointer(&ws)), 8)); err != nil {
		return 0, err
	}
	for i, a := range [4]uint32{k.align[0], k.align[1], k.align[2], k.align[2]} {
		if err := lt.check("cublasLtMatmulPreferenceSetAttribute",
			sys(lt.prefSetAttr, pref, uintptr(ltPrefMinAlignA+i), uintptr(unsafe.Pointer(&a)), 4)); err != nil {
			return 0, err
		}
	}
	return pref, nil
}

// planKey is what a plan depends on: the product, its precision and the
// alignment of its operands' addresses.
type planKey struct {
	g     GEMM
	p     Precision
	align [3]uint32 // A, B, C
}

// alignment is the largest power of two up to 256 that divides addr, at
// least 4 (float32 tensors; bfloat16 operands are pool blocks, 256-byte
// aligned).
func alignment(addr uintptr) uint32 {
	a := uint32(256)
	for a > 4 && addr%uintptr(a) != 0 {
		a /= 2
	}
	return a
}

// version is the library's version, e.g. "13.1.0" (cublasLtGetVersion
// gives major·10000 + minor·100 + patch).
func (lt *cublasLt) version() string {
	v := int(sys(lt.getVersion))
	return fmt.Sprintf("%d.%d.%d", v/10000, v/100%100, v%100)
}

// ltPlan is what one GEMM shape needs: its descriptors and algorithm.
// Plans live as long as the device (a model has a few dozen shapes).
type ltPlan struct {
	desc, a, b, c uintptr
	algo          heuristicResult
}

// plan creates the descriptors of k's product (A and B in k.p's type)
// and asks the heuristic for an algorithm that fits the workspace and
// the operands' alignment.
func (lt *cublasLt) plan(k planKey) (*ltPlan, error) {
	g := k.g
	pref, err := lt.preference(k)
	if err != nil {
		return nil, err
	}
	defer sys(lt.prefDestroy, pref) // only the heuristic reads it
	pl := &ltPlan{}
	if err := lt.check("cublasLtMatmulDescCreate", sys(lt.descCreate, uintptr(unsafe.Pointer(&pl.desc)), cublasCompute32F, cudaR32F)); err != nil {
		return nil, err
	}
	for _, at := range []struct {
		attr uintptr
		op   int32
	}{{ltDescTransA, int32(g.TransA)}, {ltDescTransB, int32(g.TransB)}} {
		if err := lt.check("cublasLtMatmulDescSetAttribute", sys(lt.descSetAttr, pl.desc, at.attr, uintptr(unsafe.Pointer(&at.op)), 4)); err != nil {
			return nil, err
		}
	}
	ab := ltTypes(k.p)
	for _, l := range []struct {
		out *uintptr
		typ int32
		l   Layout
	}{{&pl.a, ab, g.A}, {&pl.b, ab, g.B}, {&pl.c, cudaR32F, g.C}} {
		r := sys(lt.layoutCreate, uintptr(unsafe.Pointer(l.out)), uintptr(l.typ), uintptr(l.l.Rows), uintptr(l.l.Cols), uintptr(l.l.LD))
		if err := lt.check("cublasLtMatrixLayoutCreate", r); err != nil {
			return nil, err
		}
	}
	var n int32
	r := sys(lt.heuristic, lt.handle, pl.desc, pl.a, pl.b, pl.c, pl.c, pref, 1,
		uintptr(unsafe.Pointer(&pl.algo)), uintptr(unsafe.Pointer(&n)))
	if err := lt.check("cublasLtMatmulAlgoGetHeuristic", r); err != nil {
		return nil, err
	}
	if n == 0 || pl.algo.state != cublasStatusSuccess {
		return nil, fmt.Errorf("cuda: cublasLtMatmulAlgoGetHeuristic: no algorithm for %+v", g)
	}
	return pl, nil
}

// run queues D = op(A)·op(B) + beta·C (D = C, in place) on the default
// stream. alpha and beta are host values (the default pointer mode),
// read during the call.
func (lt *cublasLt) run(pl *ltPlan, a, b uintptr, beta float32, c, workspace uintptr) error {
	alpha := float32(1)
	r := sys(lt.matmul, lt.handle, pl.desc, uintptr(unsafe.Pointer(&alpha)),
		a, pl.a, b, pl.b, uintptr(unsafe.Pointer(&beta)), c, pl.c, c, pl.c,
		uintptr(unsafe.Pointer(&pl.algo.algo)), workspace, ltWorkspaceBytes, 0)
	return lt.check("cublasLtMatmul", r)
}
