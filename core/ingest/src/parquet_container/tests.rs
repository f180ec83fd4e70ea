//! The container against polars' own Parquet writer, byte for byte, and the merging of page
//! statistics against what the statistics mean.

use polars::prelude::*;
use polars_parquet::parquet::schema::types::{PhysicalType, PrimitiveType};
use polars_parquet::write::{
    CompressedPage, Compressor, DynIter, DynStreamingIterator, FallibleStreamingIterator,
};

use super::*;
use crate::native::ParquetBatches;

/// The file polars' own `FileWriter` writes from the pages `ParquetBatches` encodes: one row
/// group per `(offset, length)` slice of `frame`, with the same writer options, encodings and
/// footer key.
fn written_by_polars(frame: &DataFrame, slices: &[(i64, usize)]) -> PolarsResult<Vec<u8>> {
    let arrow = frame.schema().to_arrow(CompatLevel::newest());
    let parquet = polars_parquet::write::to_parquet_schema(&arrow)?;
    let options = crate::native::parquet_write_options();
    let key = polars_parquet::write::schema_to_metadata_key(&arrow);
    let fields = parquet.fields().to_vec();
    let encodings: Vec<Vec<polars_parquet::write::Encoding>> = arrow
        .iter_values()
        .map(|field| polars_parquet::write::get_dtype_encoding(&field.dtype))
        .collect();
    let mut out = Vec::new();
    let mut writer = polars_parquet::write::FileWriter::new_with_parquet_schema(
        &mut out, arrow, parquet, options,
    );
    for &(offset, length) in slices {
        let mut piece = frame.slice(offset, length);
        piece.rechunk_mut();
        let Some((rows, arrays)) = crate::native::record_batches(&piece).next() else {
            continue;
        };
        if rows == 0 {
            continue;
        }
        let plain = rows < crate::native::DICTIONARY_MIN_ROWS;
        let mut leaves: Vec<Vec<CompressedPage>> = Vec::new();
        for ((array, field), encodings) in arrays.iter().zip(&fields).zip(&encodings) {
            let encodings: Vec<_> = encodings
                .iter()
                .map(|&encoding| {
                    if plain && encoding == polars_parquet::write::Encoding::RleDictionary {
                        polars_parquet::write::Encoding::Plain
                    } else {
                        encoding
                    }
                })
                .collect();
            for pages in
                polars_parquet::write::array_to_columns(array, field.clone(), options, &encodings)?
            {
                let pages = pages
                    .map(|page| page.map_err(|e| ParquetError::FeatureNotSupported(e.to_string())));
                leaves.push(
                    Compressor::new_from_vec(pages, options.compression, Vec::new())
                        .collect::<Result<Vec<_>, _>>()?,
                );
            }
        }
        let columns = leaves.into_iter().map(|pages| {
            Ok(DynStreamingIterator::new(OwnedPages {
                pages: pages.into_iter(),
                current: None,
            }))
        });
        writer.write(rows as u64, DynIter::new(columns))?;
    }
    writer.end(Some(vec![key]))?;
    Ok(out)
}

/// The pages of one leaf, handed to polars' writer one at a time.
struct OwnedPages {
    pages: std::vec::IntoIter<CompressedPage>,
    current: Option<CompressedPage>,
}

impl FallibleStreamingIterator for OwnedPages {
    type Item = CompressedPage;
    type Error = PolarsError;

    fn advance(&mut self) -> PolarsResult<()> {
        self.current = self.pages.next();
        Ok(())
    }

    fn get(&self) -> Option<&CompressedPage> {
        self.current.as_ref()
    }
}

/// The file `ParquetBatches` writes, one row group per slice.
fn written_here(frame: &DataFrame, slices: &[(i64, usize)]) -> PolarsResult<Vec<u8>> {
    let mut out = Vec::new();
    let mut writer = ParquetBatches::new(frame.schema(), &mut out)?;
    for &(offset, length) in slices {
        let mut piece = frame.slice(offset, length);
        piece.rechunk_mut();
        writer.write_row_group(&piece)?;
    }
    writer.finish()?;
    Ok(out)
}

/// Asserts that both writers write the same bytes, naming the first that differs.
fn assert_same_file(frame: &DataFrame, slices: &[(i64, usize)], what: &str) -> PolarsResult<()> {
    let reference = written_by_polars(frame, slices)?;
    let ours = written_here(frame, slices)?;
    let first_difference = reference
        .iter()
        .zip(&ours)
        .position(|(a, b)| a != b)
        .unwrap_or(reference.len().min(ours.len()));
    assert!(
        reference == ours,
        "{what}: {} bytes from polars' writer, {} here, first difference at byte {first_difference}",
        reference.len(),
        ours.len()
    );
    // And polars reads it back as the table written.
    let back = ParquetReader::new(std::io::Cursor::new(ours)).finish()?;
    assert!(back.equals_missing(frame), "{what}: read back differs");
    Ok(())
}

/// Columns of every dtype a launch table holds, over `rows` rows: nulls, NaN, both zeros,
/// repeated and distinct values, and a column with no value at all.
fn mixed_frame(rows: usize) -> PolarsResult<DataFrame> {
    let zeros = [0.0f64, -0.0, 1.5, f64::NAN];
    DataFrame::new(
        rows,
        vec![
            Column::new("id".into(), (0..rows as i64).collect::<Vec<_>>()),
            Column::new(
                "name".into(),
                (0..rows)
                    .map(|r| (r % 7 != 3).then(|| format!("kernel<{}>", r % 5)))
                    .collect::<Vec<_>>(),
            ),
            Column::new(
                "distinct text".into(),
                (0..rows).map(|r| format!("k{r:08}")).collect::<Vec<_>>(),
            ),
            Column::new(
                "value".into(),
                (0..rows)
                    .map(|r| (r % 11 != 0).then(|| zeros[r % 4] + (r / 4) as f64 * 0.37))
                    .collect::<Vec<_>>(),
            ),
            Column::new(
                "zeros".into(),
                (0..rows).map(|r| zeros[r % 2]).collect::<Vec<_>>(),
            ),
            Column::new(
                "count".into(),
                (0..rows)
                    .map(|r| (r % 5 != 1).then_some((r % 13) as u32))
                    .collect::<Vec<_>>(),
            ),
            Column::new(
                "small".into(),
                (0..rows).map(|r| (r % 9) as i32 - 4).collect::<Vec<_>>(),
            ),
            Column::new(
                "flag".into(),
                (0..rows)
                    .map(|r| (r % 3 != 0).then_some(r % 2 == 0))
                    .collect::<Vec<_>>(),
            ),
            Column::full_null("empty".into(), rows, &DataType::Float64),
        ],
    )
}

#[test]
fn short_row_groups_are_the_bytes_polars_writes() -> PolarsResult<()> {
    // Plain encoding (fewer than 1024 rows a row group), several row groups.
    let frame = mixed_frame(40)?;
    assert_same_file(&frame, &[(0, 25), (25, 15)], "two short row groups")?;
    assert_same_file(&frame, &[(0, 40)], "one short row group")
}

#[test]
fn long_row_groups_with_dictionaries_and_many_pages_are_the_bytes_polars_writes() -> PolarsResult<()>
{
    // 300,000 rows: dictionary pages for the repeated values, and columns of distinct values
    // spread over several 1 MiB data pages, whose statistics are merged into the chunk's.
    let rows = 300_000;
    let frame = mixed_frame(rows)?;
    let reference = written_by_polars(&frame, &[(0, rows)])?;
    let footer_len = reference.len() - 8;
    let length = u32::from_le_bytes(reference[footer_len..footer_len + 4].try_into().unwrap());
    let footer = &reference[footer_len - length as usize..footer_len];
    let metadata = polars_parquet_format::FileMetaData::read_from_in_protocol(
        &mut polars_parquet_format::thrift::protocol::TCompactInputProtocol::new(
            footer,
            footer.len() * 4,
        ),
    )
    .map_err(parquet_error)?;
    let distinct_text = metadata.row_groups[0]
        .columns
        .iter()
        .filter_map(|column| column.meta_data.as_ref())
        .find(|meta| meta.path_in_schema == ["distinct text"])
        .map(|meta| meta.total_uncompressed_size);
    // More than two 1 MiB pages of values: the merging of page statistics is exercised.
    assert!(
        distinct_text.is_some_and(|size| size > 2 << 20),
        "{distinct_text:?}"
    );
    assert_same_file(
        &frame,
        &[(0, 120_000), (120_000, rows - 120_000)],
        "two long row groups",
    )?;
    assert_same_file(&frame, &[(0, rows)], "one long row group")
}

#[test]
fn a_file_without_a_row_group_is_the_footer_polars_writes() -> PolarsResult<()> {
    let frame = mixed_frame(0)?;
    assert_same_file(&frame, &[], "no row group")?;
    assert_same_file(&frame, &[(0, 0)], "an empty batch")
}

/// Primitive statistics of INT64 pages.
fn int64_stats(min: Option<i64>, max: Option<i64>, nulls: i64) -> Statistics {
    Statistics::Int64(PrimitiveStatistics {
        primitive_type: PrimitiveType::from_physical("x".into(), PhysicalType::Int64),
        null_count: Some(nulls),
        distinct_count: Some(3),
        min_value: min,
        max_value: max,
    })
}

#[test]
fn page_statistics_merge_into_the_least_minimum_greatest_maximum_and_summed_nulls()
-> PolarsResult<()> {
    let pages = [
        Some(int64_stats(Some(4), Some(9), 1)),
        None,
        Some(int64_stats(Some(-2), Some(5), 0)),
        Some(int64_stats(None, None, 7)),
    ];
    let merged = merged_statistics(pages.iter().map(Option::as_ref))?;
    let Some(Statistics::Int64(merged)) = merged else {
        panic!("not INT64 statistics: {merged:?}");
    };
    assert_eq!(
        (merged.min_value, merged.max_value, merged.null_count),
        (Some(-2), Some(9), Some(8))
    );
    // A distinct count cannot be summed.
    assert_eq!(merged.distinct_count, None);

    let booleans = |min, max| {
        Statistics::Boolean(BooleanStatistics {
            null_count: Some(0),
            distinct_count: None,
            min_value: min,
            max_value: max,
        })
    };
    let pages = [
        Some(booleans(Some(true), Some(true))),
        Some(booleans(Some(false), Some(false))),
    ];
    let Some(Statistics::Boolean(merged)) = merged_statistics(pages.iter().map(Option::as_ref))?
    else {
        panic!("not BOOLEAN statistics");
    };
    assert_eq!(
        (merged.min_value, merged.max_value),
        (Some(false), Some(true))
    );

    let text = |min: &[u8], max: &[u8]| {
        Statistics::Binary(BinaryStatistics {
            primitive_type: PrimitiveType::from_physical("s".into(), PhysicalType::ByteArray),
            null_count: Some(2),
            distinct_count: None,
            min_value: Some(min.to_vec()),
            max_value: Some(max.to_vec()),
        })
    };
    let pages = [Some(text(b"m", b"q")), Some(text(b"ab", b"z"))];
    let Some(Statistics::Binary(merged)) = merged_statistics(pages.iter().map(Option::as_ref))?
    else {
        panic!("not BYTE_ARRAY statistics");
    };
    assert_eq!(
        (
            merged.min_value.as_deref(),
            merged.max_value.as_deref(),
            merged.null_count
        ),
        (Some(&b"ab"[..]), Some(&b"z"[..]), Some(4))
    );
    Ok(())
}

#[test]
fn a_zero_extreme_is_written_with_the_sign_polars_gives_it() -> PolarsResult<()> {
    // A minimum of +0.0 is written as -0.0 and a maximum of -0.0 as +0.0, so that a reader
    // comparing with either zero keeps the chunk.
    let page = Statistics::Double(PrimitiveStatistics {
        primitive_type: PrimitiveType::from_physical("x".into(), PhysicalType::Double),
        null_count: Some(0),
        distinct_count: None,
        min_value: Some(0.0),
        max_value: Some(-0.0),
    });
    let Some(Statistics::Double(merged)) = merged_statistics(std::iter::once(Some(&page)))? else {
        panic!("not DOUBLE statistics");
    };
    assert!(
        merged
            .min_value
            .is_some_and(|min| min == 0.0 && min.is_sign_negative())
    );
    assert!(
        merged
            .max_value
            .is_some_and(|max| max == 0.0 && max.is_sign_positive())
    );
    Ok(())
}

#[test]
fn pages_whose_statistics_differ_in_type_are_an_error() {
    let text = Statistics::Binary(BinaryStatistics {
        primitive_type: PrimitiveType::from_physical("s".into(), PhysicalType::ByteArray),
        null_count: Some(0),
        distinct_count: None,
        min_value: None,
        max_value: None,
    });
    let number = int64_stats(Some(1), Some(2), 0);
    let merged = merged_statistics([Some(&text), Some(&number)].into_iter());
    assert!(merged.is_err(), "{merged:?}");
}
