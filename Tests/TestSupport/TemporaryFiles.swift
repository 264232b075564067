// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
import Glibc

/// A fresh folder under /tmp for one test.
public func makeTemporaryFolder() -> String {
    var template = Array("/tmp/tactus-store-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
}

/// A file's whole text, or nil when it cannot be read.
public func text(_ path: String) -> String? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        bytes += buffer[0..<count]
        if count < buffer.count { break }
    }
    return String(decoding: bytes, as: UTF8.self)
}
#endif
