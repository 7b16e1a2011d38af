//! `Builder::compile` keeps a formatting memo beside each generated file (README,
//! *Performance*): the formatted text of each piece of generated code, which the next build
//! takes instead of formatting that piece again. Its pieces are pieces of the file.

#![allow(clippy::unwrap_used, clippy::expect_used)]

/// The formatted pieces of a memo file: after its header line, `<key bytes> <text bytes>`,
/// a newline, the key, then the text.
fn pieces(memo: &str) -> Vec<&str> {
    let (header, mut rest) = memo.split_once('\n').expect("a header line");
    assert!(header.starts_with("toolcall-build ") && header.ends_with(" formatting memo"), "{header}");
    let mut pieces = Vec::new();
    while !rest.is_empty() {
        let (lengths, after) = rest.split_once('\n').expect("an entry's lengths");
        let (key, text) = lengths.split_once(' ').expect("two lengths");
        let (key, text): (usize, usize) = (key.parse().unwrap(), text.parse().unwrap());
        pieces.push(&after[key..key + text]);
        rest = &after[key + text..];
    }
    pieces
}

#[test]
fn the_memo_beside_each_generated_file_holds_pieces_of_it() {
    for file in ["tools.rs", "context_tools.rs"] {
        let path = format!("{}/{file}", env!("OUT_DIR"));
        let code = std::fs::read_to_string(&path).unwrap();
        let memo = std::fs::read_to_string(format!("{path}.memo")).unwrap();
        let pieces = pieces(&memo);
        // Each module's toolset static and each type's `FromArg` impl is a piece.
        assert!(pieces.len() >= 5, "{file}: {} pieces", pieces.len());
        for piece in pieces {
            assert!(code.contains(piece), "{file} lacks a piece of its memo:\n{piece}");
        }
    }
}
