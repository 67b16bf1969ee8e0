"""Project macros that stand for "compiled by a CUDA compiler" (archmacros.nvcc_only)."""

from hipscan.frontend.archmacros import never_defined, nvcc_only
from hipscan.platforms import hip_build, hip_scenario


def test_nvcc_only_keeps_compiler_tests_not_arch_or_both_arms(tmp_path):
    """QUDA's QUDA_CUDA_CC (defined under __CUDACC__ or clang's __CUDA__) counts; a macro both
    arms define, one derived from __CUDA_ARCH__, and one a HIP build can define do not."""
    f = tmp_path / "target.h"
    f.write_text(
        "#if defined(__CUDACC__) || defined(_NVHPC_CUDA) || (defined(__clang__) && defined(__CUDA__))\n"
        "#define PROJ_CUDA_CC\n#endif\n"
        "#ifdef __CUDACC__\n#define HD __host__ __device__\n#else\n#define HD\n#endif\n"
        "#if defined(__CUDACC__) && __CUDA_ARCH__ >= 800\n#define AMPERE\n#endif\n"
        "#if defined(__CUDACC__) || defined(__HIP__)\n#define GPU_CC\n#endif\n"
    )
    absent = never_defined([f], lambda a: hip_scenario(hip_build(), a))
    assert {"PROJ_CUDA_CC", "AMPERE"} <= absent and "HD" not in absent and "GPU_CC" not in absent
    assert nvcc_only([f], absent) == {"PROJ_CUDA_CC"}


def test_unused_macros_are_defined_but_never_named_elsewhere(tmp_path):
    """pytorch3d's `#define SHFL_SYNC ... __shfl_sync` no code expands; include guards and
    macros used in another file or in an #if count as used; a name only in a comment does not."""
    from hipscan.frontend.archmacros import unused_macros

    (tmp_path / "a.h").write_text(
        "#ifndef A_H\n#define A_H\n#define SHFL_SYNC(m, v, l) __shfl_sync(m, v, l)\n"
        "#define USED_ELSEWHERE 1\n#define TESTED 1\n// SHFL_SYNC is documented here\n#endif\n"
    )
    (tmp_path / "b.cu").write_text('#include "a.h"\nint x = USED_ELSEWHERE;\n#if TESTED\n#endif\n')
    assert unused_macros([tmp_path / "a.h", tmp_path / "b.cu"]) == {"SHFL_SYNC"}
