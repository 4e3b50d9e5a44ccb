//! JUnit XML for `throng test --junit`: one `<testsuite>` per scenario file, one `<testcase>`
//! per expectation; a failed expectation is a `<failure>`, one that could not be checked is
//! `<skipped>`, a file that could not be loaded or run is an `<error>`.

use std::fmt::Write;

use throng_engine::expect::Status;

use super::FileResult;

/// The XML text of `results`.
pub fn xml(results: &[FileResult]) -> String {
    let mut out =
        String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"throng test\">\n");
    for r in results {
        let count = |s: Status| r.outcomes.iter().filter(|o| o.status == s).count();
        let errors = usize::from(r.error.is_some());
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" errors=\"{errors}\" time=\"{:.3}\">",
            escape(&r.file),
            r.outcomes.len() + errors,
            count(Status::Fail),
            count(Status::Unchecked),
            r.wall_s
        );
        if let Some(e) = &r.error {
            let _ = writeln!(out, "    <testcase name=\"load and run\" classname=\"{}\">", escape(&r.file));
            let _ = writeln!(out, "      <error message=\"{}\"/>", escape(e));
            let _ = writeln!(out, "    </testcase>");
        }
        for o in &r.outcomes {
            let _ =
                write!(out, "    <testcase name=\"{}\" classname=\"{}\"", escape(&o.name), escape(&r.file));
            match o.status {
                Status::Pass => {
                    let _ = writeln!(out, "/>");
                }
                Status::Fail => {
                    let _ = writeln!(
                        out,
                        ">\n      <failure message=\"{}\"/>\n    </testcase>",
                        escape(&o.line())
                    );
                }
                Status::Unchecked => {
                    let _ = writeln!(
                        out,
                        ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                        escape(&o.line())
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// Text as an XML attribute value.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            c if (c as u32) < 0x20 && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}
