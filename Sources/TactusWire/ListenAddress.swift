// SPDX-License-Identifier: GPL-3.0-or-later

/// `ADDR:PORT` with a dotted IPv4 address, as `[web] listen` and `simulate --web` take it.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let port = Int(parts[1]), (1...65535).contains(port), String(port) == parts[1] else { return nil }
        let octets = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets.allSatisfy({ o in Int(o).map { (0...255).contains($0) && String($0) == o } ?? false }) else { return nil }
        host = String(parts[0])
        self.port = port
    }

    public var description: String { "\(host):\(port)" }
}
