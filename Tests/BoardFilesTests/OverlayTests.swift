// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import HAL
import TactusBase

/// Compiles overlays/*.dts with dtc (device-tree-compiler, installed by scripts/install-deps.sh)
/// and checks the result against the board files, so a broken overlay fails the build.
@Suite struct OverlayTests {
    static let dtc = ["/usr/bin/dtc", "/usr/local/bin/dtc"].first { FileManager.default.isExecutableFile(atPath: $0) }

    func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.dtc, "dtc is missing: run scripts/install-deps.sh test (package device-tree-compiler)"))
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    /// Compiles, then decompiles, an overlay; returns the decompiled text.
    func compile(_ name: String) throws -> String {
        let source = Repository.overlays.appendingPathComponent("\(name).dts").path
        let blob = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())-\(UUID().uuidString).dtbo").path
        defer { try? FileManager.default.removeItem(atPath: blob) }
        let compiled = try run(["-@", "-I", "dts", "-O", "dtb", "-o", blob, source])
        #expect(compiled.status == 0, "dtc failed: \(compiled.errors)")
        #expect(compiled.errors.isEmpty, "dtc warnings: \(compiled.errors)")
        let decompiled = try run(["-I", "dtb", "-O", "dts", blob])
        #expect(decompiled.status == 0)
        return decompiled.output
    }

    func lineNames(_ dts: String) throws -> [String] {
        let start = try #require(dts.range(of: "gpio-line-names = "))
        let rest = dts[start.upperBound...]
        let end = try #require(rest.firstIndex(of: ";"))
        return stringList(String(rest[..<end]))
    }

    /// dtc prints a string list either as "a", "b" or as one "a\0b" string.
    func stringList(_ text: String) -> [String] {
        let inner = text.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst().dropLast()
        return inner.replacingOccurrences(of: "\", \"", with: "\\0").components(separatedBy: "\\0")
    }

    @Test(arguments: [("tactus", "pi4b"), ("tactus", "pi3bplus"), ("tactus", "pi-zero-2w"), ("tactus-pi5", "pi5")])
    func overlayCompilesAndMatchesTheBoardFile(overlay: String, board identifier: String) throws {
        let dts = try compile(overlay)
        let board = try Repository.board(identifier)
        let inputOffsets = board.inputs.compactMap { if case .offset(let n) = $0.line { n } else { nil } }
        #expect(inputOffsets.count == board.inputs.count)

        // The pulled-up pins are exactly the board's inputs.
        if overlay == "tactus-pi5" {
            #expect(dts.contains("bias-pull-up;"))
            let start = try #require(dts.range(of: "\tpins = "))
            let rest = dts[start.upperBound...]
            let pins = stringList(String(rest[..<(try #require(rest.firstIndex(of: ";")))]))
            #expect(pins == inputOffsets.map { "gpio\($0)" })
        } else {
            let hex = inputOffsets.map { "0x" + String($0, radix: 16) }.joined(separator: " ")
            #expect(dts.contains("brcm,pins = <\(hex)>;"), "\(dts)")
            #expect(dts.contains("brcm,pull = <0x02>;"))
        }
        #expect(dts.contains("clock-frequency = <0x61a80>;"), "400 kHz I2C")

        // Line names put the wiring where gpioinfo shows it.
        let names = try lineNames(dts)
        try #require(names.count == 54, "\(names)")
        let expectedNames: [InputRole: String] = [.encoderA: "TACTUS_ENC_A", .encoderB: "TACTUS_ENC_B", .encoderPush: "TACTUS_ENC_PUSH",
                                                  .tap: "TACTUS_TAP", .startStop: "TACTUS_START", .footswitch: "TACTUS_FOOT"]
        for input in board.inputs {
            guard case .offset(let offset) = input.line else { continue }
            #expect(names[offset] == expectedNames[input.role])
        }
        let outputNames: [IndicatorChannel: String] = [.accentLED: "TACTUS_LED_ACCENT", .beatLED: "TACTUS_LED_BEAT",
                                                .subdivisionLED: "TACTUS_LED_SUB", .buzzer: "TACTUS_BUZZER"]
        for output in board.outputs {
            guard case .offset(let offset) = output.line else { continue }
            #expect(names[offset] == outputNames[output.indicator])
        }
    }

    @Test func aBrokenOverlayFailsToCompile() throws {
        let broken = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(getpid()).dts")
        try "/dts-v1/;\n/plugin/;\n/ { fragment@0 { target = <&gpio>; __overlay__ { brcm,pins = <17 27; }; }; };\n".write(to: broken, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: broken) }
        let result = try run(["-@", "-I", "dts", "-O", "dtb", "-o", "/dev/null", broken.path])
        #expect(result.status != 0)
    }
}
