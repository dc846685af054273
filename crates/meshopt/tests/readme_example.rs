//! The example of README.md, compiled and run.

use meshfmt_meshopt::{decode_vertex_buffer, encode_vertex_buffer};

#[test]
fn readme_example() -> Result<(), Box<dyn std::error::Error>> {
    // 1000 quantized positions (u16 x, y, z and padding): stride 8
    let data: Vec<u8> = (0..1000u16)
        .flat_map(|i| [i % 40 * 100, i / 40 * 100, 500, 0])
        .flat_map(u16::to_le_bytes)
        .collect();
    let encoded = encode_vertex_buffer(&data, 1000, 8)?;
    assert!(encoded.len() < data.len() / 2);

    let mut decoded = vec![0u8; data.len()];
    decode_vertex_buffer(&mut decoded, 1000, 8, &encoded)?;
    assert_eq!(decoded, data);
    Ok(())
}
