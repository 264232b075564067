// SPDX-License-Identifier: GPL-3.0-or-later
import LinuxHAL

/// Every file the commands read (config, board, scripts, change files) goes through here:
/// regular files only, at most 1 MiB, UTF-8, and one line naming the flag, the file and
/// the problem when it cannot be used.
enum InputFile {
    static func text(_ path: String, flag: String) throws(ExitError) -> String {
        do { return try BoundedFile.text(path) } catch {
            throw ExitError("\(flag) \(Escaped.quoted(path)) cannot be read: \(error)")
        }
    }
}
