// SPDX-License-Identifier: GPL-3.0-or-later
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
