package cuda

import "fmt"

// The backend's MatMul is row-major; cuBLASLt is column-major. A
// row-major matrix [r, c] with leading dimension c is, byte for byte, the
// column-major matrix [c, r] with the same leading dimension: its
// transpose. So the row-major c = op(a)·op(b) is the column-major
// cᵀ = op(b)ᵀ·op(a)ᵀ, a product cuBLASLt computes with the operands
// swapped (b first) and the same transpose flags. ColMajorGEMM computes
// those arguments; the real device passes them to cublasLtMatmul and the
// emulated one to EmulateColMajor, which follows cublasLtMatmul's
// contract to the letter.

// Op is cuBLAS's cublasOperation_t: whether an operand is transposed.
type Op int32

// The operations the backend uses, with cuBLAS's values.
const (
	OpN Op = 0 // CUBLAS_OP_N
	OpT Op = 1 // CUBLAS_OP_T
)

func (o Op) String() string {
	if o == OpT {
		return "T"
	}
	return "N"
}

// Layout is a cuBLASLt matrix layout (cublasLtMatrixLayoutCreate with
// CUBLASLT_ORDER_COL): the stored matrix has Rows × Cols elements, column
// j starting LD elements after column j−1.
type Layout struct {
	Rows, Cols, LD int
}

// GEMM is one column-major product as cublasLtMatmul takes it, alpha = 1:
// D = op(A)·op(B) + Beta·C with op(A) [M, K], op(B) [K, N], C = D [M, N]
// in place. A and B name the backend operands that cuBLASLt's A and B
// are: "b" and "a" for a row-major MatMul, whose operands swap.
type GEMM struct {
	TransA, TransB Op
	M, N, K        int
	A, B, C        Layout
	// AFromB is true when cuBLASLt's A is the row-major MatMul's b (and
	// its B is a): always, for a product that ColMajorGEMM computes.
	AFromB bool
}

// ColMajorGEMM returns the cublasLtMatmul arguments that compute the
// backend's row-major MatMul(ta, tb, m, n, k, a, b, beta, c): c [m, n] =
// op(a) [m, k] · op(b) [k, n], a stored [m, k] or, when ta, [k, m], b
// stored [k, n] or, when tb, [n, k], all dense. cuBLASLt's A is b (so
// TransA follows tb), its B is a, and its D is cᵀ: M = n, N = m, K = k.
func ColMajorGEMM(ta, tb bool, m, n, k int) GEMM {
	g := GEMM{M: n, N: m, K: k, AFromB: true, C: Layout{Rows: n, Cols: m, LD: n}}
	// b stored row-major is the column-major [cols, rows] with ld = its
	// row length; cuBLASLt's A must be op(b)ᵀ [n, k].
	if tb { // b stored [n, k]: column-major [k, n] = op(b), so transpose it
		g.TransA, g.A = OpT, Layout{Rows: k, Cols: n, LD: k}
	} else { // b stored [k, n]: column-major [n, k] = op(b)ᵀ as it lies
		g.TransA, g.A = OpN, Layout{Rows: n, Cols: k, LD: n}
	}
	if ta { // a stored [k, m]: column-major [m, k] = op(a), so transpose it
		g.TransB, g.B = OpT, Layout{Rows: m, Cols: k, LD: m}
	} else { // a stored [m, k]: column-major [k, m] = op(a)ᵀ as it lies
		g.TransB, g.B = OpN, Layout{Rows: k, Cols: m, LD: k}
	}
	return g
}

// Check reports the argument errors cublasLtMatmul answers with
// CUBLAS_STATUS_INVALID_VALUE: layouts whose shapes, after their
// operation, disagree with M, N and K, and leading dimensions below the
// rows.
func (g GEMM) Check() error {
	opShape := func(t Op, l Layout) (int, int) {
		if t == OpT {
			return l.Cols, l.Rows
		}
		return l.Rows, l.Cols
	}
	if r, c := opShape(g.TransA, g.A); r != g.M || c != g.K {
		return fmt.Errorf("op(A) is [%d, %d], not [M, K] = [%d, %d]", r, c, g.M, g.K)
	}
	if r, c := opShape(g.TransB, g.B); r != g.K || c != g.N {
		return fmt.Errorf("op(B) is [%d, %d], not [K, N] = [%d, %d]", r, c, g.K, g.N)
	}
	if g.C.Rows != g.M || g.C.Cols != g.N {
		return fmt.Errorf("C is [%d, %d], not [M, N] = [%d, %d]", g.C.Rows, g.C.Cols, g.M, g.N)
	}
	for _, l := range []struct {
		name string
		l    Layout
	}{{"A", g.A}, {"B", g.B}, {"C", g.C}} {
		if l.l.LD < max(1, l.l.Rows) {
			return fmt.Errorf("%s has ld %d below its %d rows", l.name, l.l.LD, l.l.Rows)
		}
	}
	return nil
}

// Elems is the number of elements a column-major layout spans.
func (l Layout) Elems() int {
	if l.Rows == 0 || l.Cols == 0 {
		return 0
	}
	return (l.Cols-1)*l.LD + l.Rows
}

// EmulateColMajor computes g on host slices as cublasLtMatmul with f32
// compute does, by its column-major definition: element (i, j) of a
// layout is at i + j·LD; D = op(A)·op(B) + beta·C, C not read when beta
// is 0. It sums in float32 in k order, as the pure-Go backend does. It
// returns g.Check's error, or an error when a slice is shorter than its
// layout.
func EmulateColMajor(g GEMM, a, b []float32, beta float32, c []float32) error {
	if err := g.Check(); err != nil {
		return err
	}
	for _, s := range []struct {
		name string
		n    int
		l    Layout
	}{{"A", len(a), g.A}, {"B", len(b), g.B}, {"C", len(c), g.C}} {
		if s.n < s.l.Elems() {
			return fmt.Errorf("%s holds %d values, its layout spans %d", s.name, s.n, s.l.Elems())
		}
	}
	at := func(t Op, l Layout, x []float32, i, j int) float32 { // op(X)(i, j)
		if t == OpT {
			i, j = j, i
		}
		return x[i+j*l.LD]
	}
	for j := 0; j < g.N; j++ {
		for i := 0; i < g.M; i++ {
			var s float32
			for l := 0; l < g.K; l++ {
				s += at(g.TransA, g.A, a, i, l) * at(g.TransB, g.B, b, l, j)
			}
			d := &c[i+j*g.C.LD]
			if beta != 0 {
				s += beta * *d
			}
			*d = s
		}
	}
	return nil
}
