// SPDX-License-Identifier: GPL-3.0-or-later
import TOMLReader

/// A failure reported as one line on stderr with a non-zero exit and no stack trace.
struct ExitError: Error, CustomStringConvertible {
    let message: String
    let code: Int32

    init(_ message: String, code: Int32 = 2) {
        self.message = message
        self.code = code
    }

    var description: String { message }
}

/// A whole-number flag, read here rather than by ArgumentParser so that an overflow or a
/// fraction gets the same one line as any other bad value, naming what is allowed.
func wholeNumber(_ text: String, flag: String, in range: ClosedRange<Int>, allowed: String) throws -> Int {
    guard let value = Int(text), range.contains(value) else {
        throw ExitError("\(flag) '\(oneLine(text))' is invalid: allowed \(allowed)")
    }
    return value
}
