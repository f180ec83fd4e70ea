//! Hand-built reports for what the fixtures do not show: unknown fields, string tables in later
//! blocks (including ncu 2023.3's tables that continue after the result), a NameId beyond the
//! table, rule markup, and results after SourceData.

use warpsight_ncu_rep::{DecodeError, LaunchStream, Report, Severity, SpeedupKind, Value, decode};

/// Appends a varint.
fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A varint field.
fn vfield(out: &mut Vec<u8>, number: u32, v: u64) {
    varint(out, u64::from(number) << 3);
    varint(out, v);
}

/// A length-delimited field.
fn lfield(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    varint(out, (u64::from(number) << 3) | 2);
    varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// A double field.
fn dfield(out: &mut Vec<u8>, number: u32, v: f64) {
    varint(out, (u64::from(number) << 3) | 1);
    out.extend_from_slice(&v.to_le_bytes());
}

/// A metric `{1 NameId, 2 {5 Uint64Value}}`.
fn metric(name_id: u64, value: u64) -> Vec<u8> {
    let mut v = Vec::new();
    vfield(&mut v, 5, value);
    let mut m = Vec::new();
    vfield(&mut m, 1, name_id);
    lfield(&mut m, 2, &v);
    m
}

/// A ProfileResult with a kernel name, an unknown field and the given metrics.
fn result(name: &str, metrics: &[Vec<u8>]) -> Vec<u8> {
    let mut r = Vec::new();
    lfield(&mut r, 6, name.as_bytes());
    vfield(&mut r, 999, 7); // An unknown field, to be skipped.
    for m in metrics {
        lfield(&mut r, 13, m);
    }
    r
}

/// A string table message.
fn table(strings: &[&str]) -> Vec<u8> {
    let mut t = Vec::new();
    for s in strings {
        lfield(&mut t, 1, s.as_bytes());
    }
    t
}

/// A block: header {NumSources, NumResults, StringTable, PayloadSize} and its payload.
fn block(out: &mut Vec<u8>, table: Option<Vec<u8>>, sources: &[Vec<u8>], results: &[Vec<u8>]) {
    let mut payload = Vec::new();
    for m in sources.iter().chain(results) {
        payload.extend_from_slice(&(m.len() as u32).to_le_bytes());
        payload.extend_from_slice(m);
    }
    let mut h = Vec::new();
    vfield(&mut h, 1, sources.len() as u64);
    vfield(&mut h, 2, results.len() as u64);
    if let Some(t) = table {
        lfield(&mut h, 4, &t);
    }
    vfield(&mut h, 5, payload.len() as u64);
    vfield(&mut h, 77, 1); // An unknown header field.
    out.extend_from_slice(&(h.len() as u32).to_le_bytes());
    out.extend_from_slice(&h);
    out.extend_from_slice(&payload);
}

/// The magic and a version-7 FileHeader.
fn header() -> Vec<u8> {
    let mut out = b"NVR\0".to_vec();
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&[0x08, 0x07]);
    out
}

/// Every non-empty string table of the file continues one numbering, in file order, whichever
/// block a result is in: NVIDIA's reader (`ncu_report` 2026.3.1) reads a report whose second
/// result block carries a table of its own this way (a copy of a real result block given the
/// first table's names in reverse order still read its `NameId` 0 as the first table's entry 0).
#[test]
fn later_string_tables_continue_one_numbering() {
    let mut f = header();
    block(
        &mut f,
        Some(table(&["a", "b"])),
        &[b"SASS".to_vec()],
        &[result("k0", &[metric(1, 10)])],
    );
    // An empty table adds nothing.
    block(
        &mut f,
        Some(table(&[])),
        &[],
        &[result("k1", &[metric(0, 11)])],
    );
    // A table that repeats the first one's names and adds one: entries 2, 3 and 4.
    block(
        &mut f,
        Some(table(&["a", "b", "c"])),
        &[],
        &[result("k2", &[metric(4, 12), metric(0, 13)])],
    );
    // Another table: entry 5; entry 2 is still the third table's `a`.
    block(
        &mut f,
        Some(table(&["z"])),
        &[],
        &[result("k3", &[metric(5, 14), metric(2, 15)])],
    );
    let r = decode(&f).unwrap();
    assert_eq!(r.names(), ["a", "b", "c", "z"]);
    assert_eq!(r.source_count, 1);
    let got: Vec<(String, u64)> = r
        .launches
        .iter()
        .flat_map(|l| {
            l.metrics.iter().map(|m| {
                (
                    r.name(m.name).to_string(),
                    m.value.as_ref().unwrap().as_u64().unwrap(),
                )
            })
        })
        .collect();
    let want = [
        ("b", 10),
        ("a", 11),
        ("c", 12),
        ("a", 13),
        ("z", 14),
        ("a", 15),
    ];
    assert_eq!(got, want.map(|(n, v)| (n.to_string(), v)));
    assert_eq!(r.launches[3].kernel_name(), Some("k3"));
    assert_eq!(r.value(&r.launches[0], "b"), Some(&Value::Uint64(10)));
}

/// Every metric of every launch as (name, value), in report order.
fn named_values(r: &Report) -> Vec<(String, u64)> {
    r.launches
        .iter()
        .flat_map(|l| {
            l.metrics.iter().map(|m| {
                let v = m.value.as_ref().and_then(Value::as_u64);
                (r.name(m.name).to_string(), v.unwrap_or(u64::MAX))
            })
        })
        .collect()
}

/// Decodes `f` with [`LaunchStream`] and checks it gives the launches and names `decode` gave.
fn assert_stream_matches(f: &[u8], r: &Report) {
    let mut stream = LaunchStream::new(f).unwrap();
    let mut n = 0;
    for item in stream.by_ref() {
        let (launch, _) = item.unwrap();
        assert_eq!(launch, r.launches[n], "launch {n}");
        n += 1;
    }
    assert_eq!(n, r.launches.len());
    assert_eq!(stream.names(), r.names());
}

/// The layout Nsight Compute 2023.3.0 writes (six real reports in `../shared/traces`): the
/// string table in the result's block ends before the last names the result uses, and each
/// missing name comes as a one-entry table in a later block that has no results. The later
/// tables continue the numbering in file order; NVIDIA's own reader resolves them so (checked by
/// patching a real report, see RESULTS.md). Before the fix, NameId 2 was an error.
#[test]
fn later_tables_continue_the_numbering() {
    let mut f = header();
    block(
        &mut f,
        Some(table(&["a", "b"])),
        &[b"SASS".to_vec()],
        &[result(
            "k0",
            &[metric(0, 10), metric(1, 11), metric(2, 12), metric(3, 13)],
        )],
    );
    // A session block with an empty table, then the two one-entry tables.
    block(&mut f, Some(table(&[])), &[], &[]);
    block(&mut f, Some(table(&["c"])), &[], &[]);
    block(&mut f, Some(table(&["d"])), &[], &[]);
    // A later result with a table of its own: its entry is number 4 of the one numbering.
    block(
        &mut f,
        Some(table(&["e"])),
        &[],
        &[result("k1", &[metric(4, 14)])],
    );
    let r = decode(&f).unwrap();
    assert_eq!(r.names(), ["a", "b", "c", "d", "e"]);
    let want = [("a", 10), ("b", 11), ("c", 12), ("d", 13), ("e", 14)];
    assert_eq!(named_values(&r), want.map(|(n, v)| (n.to_string(), v)));
    assert_eq!(r.value(&r.launches[0], "d"), Some(&Value::Uint64(13)));
    // The stream meets NameId 2 before the blocks that hold it and reads their tables ahead.
    assert_stream_matches(&f, &r);

    // A NameId beyond every table of the file is still an error, and its
    // message counts all of them.
    let mut f = header();
    block(
        &mut f,
        Some(table(&["a", "b"])),
        &[],
        &[result("k", &[metric(0, 1), metric(4, 2)])],
    );
    block(&mut f, Some(table(&["c"])), &[], &[]);
    block(&mut f, Some(table(&["d"])), &[], &[]);
    let e = decode(&f).unwrap_err();
    assert!(
        matches!(e, DecodeError::NameId { id: 4, len: 4, .. }),
        "{e}"
    );
    let streamed = LaunchStream::new(&f).unwrap().next().unwrap().unwrap_err();
    assert_eq!(streamed, e);

    // A result before any string table resolves into the tables after it (NVIDIA's reader
    // numbers all tables in file order as one).
    let mut f = header();
    block(&mut f, None, &[], &[result("k", &[metric(1, 7)])]);
    block(&mut f, Some(table(&["x", "y"])), &[], &[]);
    let r = decode(&f).unwrap();
    assert_eq!(named_values(&r), [("y".to_string(), 7)]);
    assert_stream_matches(&f, &r);
}

#[test]
fn name_id_beyond_the_table_is_an_error() {
    let mut f = header();
    block(
        &mut f,
        Some(table(&["a"])),
        &[],
        &[result("k", &[metric(5, 1)])],
    );
    let e = decode(&f).unwrap_err();
    assert!(
        matches!(e, DecodeError::NameId { id: 5, len: 1, .. }),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("beyond the string table of 1 entries"),
        "{e}"
    );
    // A result before any string table has no names at all.
    let mut f = header();
    block(&mut f, None, &[], &[result("k", &[metric(0, 1)])]);
    assert!(matches!(
        decode(&f).unwrap_err(),
        DecodeError::NameId { len: 0, .. }
    ));
}

#[test]
fn rules_with_markup_speedup_and_several_messages() {
    let item = |text: &str, kind: u64, speedup: Option<(u64, f64)>| {
        let mut msg = Vec::new();
        lfield(&mut msg, 1, text.as_bytes());
        vfield(&mut msg, 2, kind);
        let mut item = Vec::new();
        lfield(&mut item, 1, &msg);
        if let Some((t, v)) = speedup {
            let mut s = Vec::new();
            vfield(&mut s, 1, t);
            dfield(&mut s, 2, v);
            lfield(&mut item, 10, &s);
        }
        item
    };
    let mut body = Vec::new();
    lfield(
        &mut body,
        1,
        &item(
            "See @url:Guide:https://x.test/g@ and @section:Occupancy:Occupancy@.",
            4,
            Some((2, 12.5)),
        ),
    );
    lfield(&mut body, 1, &item("All good.", 1, None));
    let mut rule = Vec::new();
    lfield(&mut rule, 1, b"MyRule");
    lfield(&mut rule, 3, &body);
    lfield(&mut rule, 4, b"MySection");
    // A rule that did not fire: no body, no rows.
    let mut quiet = Vec::new();
    lfield(&mut quiet, 1, b"Quiet");
    let mut r = result("k", &[]);
    lfield(&mut r, 19, &rule);
    lfield(&mut r, 19, &quiet);
    let mut f = header();
    block(&mut f, Some(table(&["a"])), &[], &[r]);
    let rep = decode(&f).unwrap();
    assert_eq!(rep.rules.len(), 2);
    let a = &rep.rules[0];
    assert_eq!(
        (a.rule_id.as_str(), a.section.as_deref()),
        ("MyRule", Some("MySection"))
    );
    assert_eq!(a.message, "See Guide (https://x.test/g) and Occupancy.");
    assert_eq!(a.severity, Severity::Optimization);
    assert_eq!(
        a.speedup.map(|s| (s.kind, s.value)),
        Some((SpeedupKind::Global, Some(12.5)))
    );
    assert_eq!(rep.rules[1].severity.csv_code(), "INF");
    assert_eq!(rep.rules[1].speedup, None);
}

#[test]
fn trailing_garbage_and_short_payloads_are_errors_with_offsets() {
    let mut f = header();
    block(
        &mut f,
        Some(table(&["a"])),
        &[],
        &[result("k", &[metric(0, 1)])],
    );
    let good_len = f.len();
    // Three stray bytes after the last block: not even a u32 BlockHeader size.
    f.extend_from_slice(&[1, 2, 3]);
    let e = decode(&f).unwrap_err();
    assert_eq!(e.offset(), good_len);
    assert!(e.to_string().contains("a u32 BlockHeader size"), "{e}");
}
