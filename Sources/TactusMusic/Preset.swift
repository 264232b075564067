// SPDX-License-Identifier: GPL-3.0-or-later
public struct Preset: Sendable, Hashable {
    public var name: String
    public var settings: MetronomeSettings

    public init(name: String, settings: MetronomeSettings) {
        self.name = name
        self.settings = settings
    }
}
