//! Kernel and device names, one rule for every reader: the short kernel name derived from a
//! demangled (or simply mangled) name, as Nsight Systems prints it and as the Nsight Compute readers
//! now derive it too (so `diff` of an ncu export against an nsys export matches kernels), and the
//! `NVIDIA GeForce RTX 4090 (0)` device label split into name and ordinal.

/// The short name of a kernel: the function name without return type, namespaces, template
/// arguments or parameter list, as nsys's own `shortName` gives it.
///
/// `void cutlass::Kernel2<cutlass_80_tensorop<...>>(T1::Params)` gives `Kernel2`;
/// `at::native::<unnamed>::masked_scatter_size_check(const long *, long)` gives
/// `masked_scatter_size_check`; a plain `scale` stays `scale`. Itanium-mangled names
/// (`_Z13kernVectorAddPKfS0_Pfi`, `_ZN7cutlass6KernelI...E...`) give their last name component.
pub(crate) fn short_name(name: &str) -> &str {
    let name = name.trim();
    if let Some(short) = mangled_short_name(name) {
        return short;
    }
    let without_params = strip_trailing_group(name, b'(', b')');
    let without_template = strip_trailing_group(without_params, b'<', b'>');
    let after_return_type = after_last_top_level(without_template, " ");
    let short = after_last_top_level(after_return_type, "::");
    if short.is_empty() { name } else { short }
}

/// Removes a balanced `open ... close` group that ends the text (with any spaces before it).
fn strip_trailing_group(text: &str, open: u8, close: u8) -> &str {
    let bytes = text.as_bytes();
    if bytes.last() != Some(&close) {
        return text;
    }
    let mut depth = 0i32;
    for (index, &byte) in bytes.iter().enumerate().rev() {
        if byte == close {
            depth += 1;
        } else if byte == open {
            depth -= 1;
            if depth == 0 {
                // `operator()` and the like: an empty group right after `operator` is the name.
                let head = text[..index].trim_end();
                if head.is_empty() {
                    return text;
                }
                return head;
            }
        }
    }
    text
}

/// The part of `text` after the last occurrence of `separator` outside any `<>`, `()` or `[]`.
fn after_last_top_level<'a>(text: &'a str, separator: &str) -> &'a str {
    let bytes = text.as_bytes();
    let sep = separator.as_bytes();
    let mut depth = 0i32;
    let mut cut = 0usize;
    let mut index = 0usize;
    while index < bytes.len() {
        match bytes[index] {
            b'<' | b'(' | b'[' => depth += 1,
            b'>' | b')' | b']' => depth -= 1,
            _ => {
                if depth == 0 && bytes[index..].starts_with(sep) {
                    cut = index + sep.len();
                    index += sep.len();
                    continue;
                }
            }
        }
        index += 1;
    }
    &text[cut..]
}

/// The last name component of an Itanium-mangled name (`_Z<len><name>...` or
/// `_ZN<len><name>...<len><name>E...`), or `None` when `name` is not mangled that way.
fn mangled_short_name(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("_Z")?;
    let (mut rest, nested) = match rest.strip_prefix('N') {
        Some(nested) => (nested, true),
        None => (rest, false),
    };
    let mut last: Option<&str> = None;
    loop {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            break;
        }
        let length: usize = rest[..digits].parse().ok()?;
        let component = rest.get(digits..digits + length)?;
        last = Some(component);
        rest = &rest[digits + length..];
        if !nested {
            break;
        }
        // Skip template arguments of a component (`I...E`): the name we want is already taken.
        if rest.starts_with('I') || rest.starts_with('E') {
            break;
        }
    }
    last
}

/// Splits an nsys device label `NVIDIA GeForce RTX 4090 (0)` into (`NVIDIA GeForce RTX 4090`,
/// `Some(0)`). A label without a trailing `(ordinal)` is returned whole with no ordinal.
pub(crate) fn split_device_label(label: &str) -> (&str, Option<i64>) {
    let label = label.trim();
    if let Some(body) = label.strip_suffix(')')
        && let Some(open) = body.rfind('(')
        && let Ok(ordinal) = body[open + 1..].trim().parse::<i64>()
    {
        return (body[..open].trim_end(), Some(ordinal));
    }
    (label, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_drop_return_type_namespaces_templates_and_parameters() {
        // Names from real nsys exports (#11, #18, #20 in the shared corpus).
        assert_eq!(
            short_name(
                "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>(T1::Params)"
            ),
            "Kernel2"
        );
        assert_eq!(
            short_name(
                "std::enable_if<!T7, void>::type internal::gemvx::kernel<int, int, __nv_bfloat16, float, (bool)0, (int)7>(T13)"
            ),
            "kernel"
        );
        assert_eq!(
            short_name(
                "at::native::<unnamed>::masked_scatter_size_check(const long *, const bool *, long)"
            ),
            "masked_scatter_size_check"
        );
        assert_eq!(
            short_name("tensorrt_llm::kernels::delayStreamKernel(long long)"),
            "delayStreamKernel"
        );
        assert_eq!(
            short_name(
                "void at::native::vectorized_elementwise_kernel<(int)4, at::native::sigmoid_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 2)]::operator ()() const>(int, T2, T3)"
            ),
            "vectorized_elementwise_kernel"
        );
        assert_eq!(short_name("scale"), "scale");
        assert_eq!(
            short_name("kernVectorAdd(const float *, const float *, float *, int)"),
            "kernVectorAdd"
        );
        assert_eq!(short_name("ns::(anonymous namespace)::k(int)"), "k");
    }

    #[test]
    fn mangled_names_give_their_last_component() {
        // #22 stores `_Z13kernVectorAddPKfS0_Pfi` as the mangled name of `kernVectorAdd`.
        assert_eq!(short_name("_Z13kernVectorAddPKfS0_Pfi"), "kernVectorAdd");
        assert_eq!(short_name("_ZN7cutlass6KernelINS_4gemmEEEvT_"), "Kernel");
    }

    #[test]
    fn device_labels_split_into_name_and_ordinal() {
        assert_eq!(
            split_device_label("NVIDIA GeForce RTX 4090 (0)"),
            ("NVIDIA GeForce RTX 4090", Some(0))
        );
        assert_eq!(
            split_device_label("NVIDIA H100 80GB HBM3 (7)"),
            ("NVIDIA H100 80GB HBM3", Some(7))
        );
        assert_eq!(split_device_label("Tesla V100"), ("Tesla V100", None));
    }

    #[test]
    fn ncu_demangled_names_shorten_like_nsys_names() {
        assert_eq!(
            short_name("cuda_compute_flux(int,int*,float*,float*,float*)"),
            "cuda_compute_flux"
        );
        assert_eq!(short_name("cuda_compute_flux"), "cuda_compute_flux");
        assert_eq!(
            short_name(
                "void at::native::vectorized_elementwise_kernel<4, float, at::detail::Array<char *, 2>>(int, T2, T3)"
            ),
            "vectorized_elementwise_kernel"
        );
        assert_eq!(
            short_name("enable_if<!T7, void>::type kernel<int, int, float, 0>(T13)"),
            "kernel"
        );
        assert_eq!(
            short_name(
                "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>(T1::Params)"
            ),
            "Kernel2"
        );
    }
}
