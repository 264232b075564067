/// Volumes in percent (0...100), each applied exactly as set: a click's gain is
/// master/100 x its kind's volume/100, and adding layers never rescales the others.
public struct Volumes: Sendable, Hashable, CustomStringConvertible {
    public static let range: ClosedRange<Int> = 0...100

    public private(set) var master: Int = 80
    public private(set) var accent: Int = 100
    public private(set) var beat: Int = 80
    /// Index n - 2 holds layer n's volume.
    public private(set) var layers: [Int] = Array(repeating: 60, count: 8)

    public init() {}

    public func layer(_ n: Int) -> Int { layers[n - 2] }

    /// Sets one volume by name: master, accent, beat, sub2 ... sub9.
    public mutating func set(_ name: String, to value: Int) throws(SettingError) {
        guard Volumes.range.contains(value) else {
            throw SettingError(field: "volume \(name)", value: "\(value)", allowed: "allowed 0 to 100 (percent)")
        }
        switch name {
        case "master": master = value
        case "accent": accent = value
        case "beat": beat = value
        default:
            guard name.hasPrefix("sub"), let n = Int(name.dropFirst(3)), Subdivisions.range.contains(n) else {
                throw SettingError(field: "volume", value: name, allowed: "names are master, accent, beat, sub2 ... sub9")
            }
            layers[n - 2] = value
        }
    }

    /// Applies "master=80,accent=100,sub2=60" on top of the current values.
    public mutating func apply(parsing text: String) throws(SettingError) {
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = item.split(separator: "=", omittingEmptySubsequences: false)
            guard pair.count == 2, let value = Int(pair[1]) else {
                throw SettingError(field: "volume", value: String(item),
                                   allowed: "expected name=percent pairs such as master=80,accent=100,beat=80,sub2=60")
            }
            try set(String(pair[0]), to: value)
        }
    }

    public var description: String {
        (["master=\(master)", "accent=\(accent)", "beat=\(beat)"] + (2...9).map { "sub\($0)=\(layer($0))" })
            .joined(separator: ",")
    }
}
