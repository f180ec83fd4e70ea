//! Public API behaviour: the streaming iterator agrees with `decode`, session metadata is
//! merged, and bad headers give the documented errors.

use warpsight_ncu_rep::{DecodeError, LaunchStream, blocks, decode, is_ncu_rep, is_zstd, summary};

use super::support::{REPORTS, report, report_bytes};

#[test]
fn stream_equals_decode() {
    for name in REPORTS {
        let bytes = report_bytes(name);
        let report = decode(&bytes).unwrap();
        let mut stream = LaunchStream::new(&bytes).unwrap();
        let mut n = 0;
        let mut rules = Vec::new();
        for item in stream.by_ref() {
            let (launch, mut r) = item.unwrap();
            // Compared through Debug because NaN values (which some metrics hold) are never
            // equal to themselves.
            assert_eq!(
                format!("{launch:?}"),
                format!("{:?}", report.launches[n]),
                "{name} launch {n}"
            );
            rules.append(&mut r);
            n += 1;
        }
        assert_eq!(n, report.launches.len());
        assert_eq!(rules, report.rules);
        assert_eq!(stream.names(), report.names());
    }
}

#[test]
fn summary_agrees_with_decode() {
    for name in REPORTS {
        let bytes = report_bytes(name);
        let r = decode(&bytes).unwrap();
        let s = summary(&bytes).unwrap();
        assert_eq!(s.report_version, r.report_version, "{name}");
        assert_eq!(s.ncu_version, r.ncu_version, "{name}");
        assert_eq!(s.devices, r.devices, "{name}");
        assert_eq!(s.launch_count, r.launches.len(), "{name}");
        assert_eq!(s.block_count, r.block_count, "{name}");
    }
    assert!(matches!(
        summary(&[0x28, 0xB5, 0x2F, 0xFD, 0]),
        Err(DecodeError::Compressed { offset: 0 })
    ));
}

#[test]
fn session_metadata() {
    for name in REPORTS {
        let r = report(name);
        assert_eq!(r.report_version, 7);
        assert_eq!(
            r.ncu_version.as_deref(),
            Some("2025.3.1.0 (build 36398880) (public-release)")
        );
        assert_eq!(r.devices.len(), 1, "{name}");
        let d = &r.devices[0];
        assert_eq!(d.ordinal, 0);
        assert_eq!(d.name.as_deref(), Some("NVIDIA H100 80GB HBM3"));
        let warps = d.attribute("device__attribute_max_warps_per_multiprocessor");
        assert_eq!(warps.and_then(|v| v.as_u64()), Some(64));
        assert_eq!(r.processes.len(), 1);
        assert!(r.command_line.as_deref().unwrap().contains("ncu"));
        for (i, l) in r.launches.iter().enumerate() {
            assert_eq!(l.id, i);
            assert_eq!(l.device, Some(0));
        }
    }
    let gpt = report("gpt_layer_basic");
    assert_eq!(gpt.launches.len(), 18);
    assert_eq!(gpt.block_count, 34);
    assert_eq!(gpt.launches[0].process_display_name(), Some("python3.12"));
}

#[test]
fn block_iterator_counts() {
    let bytes = report_bytes("copy_basic");
    let mut results = 0;
    let mut n = 0;
    for b in blocks(&bytes).unwrap() {
        let b = b.unwrap();
        n += 1;
        results += b.results().inspect(|r| assert!(r.is_ok())).count();
    }
    assert_eq!((n, results), (13, 3));
}

#[test]
fn header_errors() {
    let good = report_bytes("copy_basic");
    assert!(is_ncu_rep(&good));

    let e = decode(b"").unwrap_err();
    assert!(matches!(e, DecodeError::BadMagic { .. }), "{e}");
    let e = decode(b"PK\x03\x04rest").unwrap_err();
    assert!(e.to_string().contains("50 4B 03 04"), "{e}");

    let zstd = [0x28, 0xB5, 0x2F, 0xFD, 0, 0];
    assert!(is_zstd(&zstd));
    let e = decode(&zstd).unwrap_err();
    assert!(matches!(e, DecodeError::Compressed { offset: 0 }), "{e}");
    assert!(e.to_string().contains("zstd -d"), "{e}");

    // FileHeader version 8 instead of 7.
    let mut v8 = good.clone();
    assert_eq!(&v8[8..10], &[0x08, 0x07]);
    v8[9] = 8;
    let e = decode(&v8).unwrap_err();
    assert_eq!(
        e.to_string(),
        "offset 8: unsupported report version 8, expected FileHeader version 7"
    );

    // Only the magic and half of the FileHeader size.
    let e = decode(&good[..6]).unwrap_err();
    assert_eq!(e.offset(), 4);

    // A BlockHeader size far beyond the file.
    let mut big = good.clone();
    big[10..14].copy_from_slice(&99_999_999u32.to_le_bytes());
    let e = decode(&big).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "offset 10: BlockHeader size 99999999 exceeds the {} remaining bytes",
            good.len() - 14
        )
    );

    // Cut in the middle of the first result.
    let e = decode(&good[..60_000]).unwrap_err();
    assert!(matches!(e, DecodeError::SizeExceeds { .. }), "{e}");
}
