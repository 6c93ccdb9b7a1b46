# Sourced by the benchmark scripts: puts the PyTorch peer on the OpenBLAS
# kernels artist itself takes. On a CPU with AVX2 and FMA artist asks
# OpenBLAS for its Haswell kernels unless OPENBLAS_CORETYPE is set
# (cpu.OpenBLASCoreType in policy/backend/cpu), so the same variable is
# exported here for PyTorch's process; a value already set is kept, and
# then selects the kernels of both sides.
if [ -z "${OPENBLAS_CORETYPE:-}" ] && grep -qw avx2 /proc/cpuinfo 2>/dev/null && grep -qw fma /proc/cpuinfo; then
	export OPENBLAS_CORETYPE=Haswell
fi
