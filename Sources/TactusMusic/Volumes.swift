// SPDX-License-Identifier: GPL-3.0-or-later
/// Volumes in percent (0...100), each applied exactly as set: a click's gain is
/// master/100 x its kind's volume/100, and adding layers never rescales the others.
public struct Volumes: Sendable, Hashable, CustomStringConvertible {
    public static let range: ClosedRange<Int> = 0...100

    public private(set) var master: Int = 80
    public private(set) var accent: Int = 100
    public private(set) var beat: Int = 80
    /// Index n - 2 holds layer n's volume.
    public private(set) var layers: [Int] = Array(repeating: 60, count: 8)
    /// The soft accent (group starts): the accent's clip at its own volume.
    public private(set) var soft: Int = 70
    /// Index m - 1 holds poly layer m's volume.
    public private(set) var poly: [Int] = Array(repeating: 60, count: PolyLayer.maximumLayers)

    /// Every name `set` accepts.
    public static let names = ["master", "accent", "soft", "beat"] + Subdivisions.range.map { "sub\($0)" }
        + (1...PolyLayer.maximumLayers).map { "poly\($0)" }

    public init() {}

    public func layer(_ n: Int) -> Int { layers[n - 2] }

    /// The same volumes with the master at 0: silent, every other volume kept.
    public var silenced: Volumes {
        var volumes = self
        volumes.master = 0
        return volumes
    }

    public func polyLayer(_ m: Int) -> Int { poly[m - 1] }

    /// The volume called `name` (one of `names`).
    public func value(of name: String) -> Int? {
        switch name {
        case "master": master
        case "accent": accent
        case "soft": soft
        case "beat": beat
        default:
            if name.hasPrefix("sub"), let n = Int(name.dropFirst(3)), Subdivisions.range.contains(n) { layer(n) }
            else if name.hasPrefix("poly"), let m = Int(name.dropFirst(4)), (1...PolyLayer.maximumLayers).contains(m) { polyLayer(m) }
            else { nil }
        }
    }

    /// Sets one volume by name: master, accent, soft, beat, sub2 ... sub9, poly1 ... poly4.
    public mutating func set(_ name: String, to value: Int) throws(SettingError) {
        guard Volumes.range.contains(value) else {
            throw SettingError(field: "volume \(name)", value: "\(value)", allowed: "allowed 0 to 100 (percent)")
        }
        switch name {
        case "master": master = value
        case "accent": accent = value
        case "beat": beat = value
        case "soft": soft = value
        default:
            if name.hasPrefix("sub"), let n = Int(name.dropFirst(3)), Subdivisions.range.contains(n) {
                layers[n - 2] = value
            } else if name.hasPrefix("poly"), let m = Int(name.dropFirst(4)), (1...PolyLayer.maximumLayers).contains(m) {
                poly[m - 1] = value
            } else {
                throw SettingError(field: SettingName.volume.name, value: name, allowed: "names are master, accent, soft, beat, sub2 ... sub9, poly1 ... poly4")
            }
        }
    }

    /// Applies "master=80,accent=100,sub2=60" on top of the current values.
    public mutating func apply(parsing text: String) throws(SettingError) {
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = item.split(separator: "=", omittingEmptySubsequences: false)
            guard pair.count == 2, let value = Int(pair[1]) else {
                throw SettingError(field: SettingName.volume.name, value: String(item),
                                   allowed: "expected name=percent pairs such as master=80,accent=100,soft=70,beat=80,sub2=60,poly1=60")
            }
            try set(String(pair[0]), to: value)
        }
    }

    public var description: String {
        Volumes.names.map { "\($0)=\(value(of: $0)!)" }.joined(separator: ",")
    }
}
