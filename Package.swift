// swift-tools-version:6.1
// SPDX-License-Identifier: GPL-3.0-or-later
import PackageDescription
import Foundation

// The GPIO backend is chosen here, at build time: libgpiod 2 (v2 API: Debian 13, Raspberry Pi
// OS trixie) or libgpiod 1.6 (Debian 12, Raspberry Pi OS bookworm). Both ship gpiod.h and
// libgpiod.pc, so it is the version pkg-config reports; TACTUS_LIBGPIOD=1|2 overrides it.
// `make build GPIOD=2` builds against bookworm-backports' libgpiod 2 in .build-deps/libgpiod2.
func libgpiodMajorVersion() -> Int {
    if let forced = Context.environment["TACTUS_LIBGPIOD"], let major = Int(forced) { return major }
    let pkgConfig = Process()
    pkgConfig.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    pkgConfig.arguments = ["pkg-config", "--modversion", "libgpiod"]
    let output = Pipe()
    pkgConfig.standardOutput = output
    pkgConfig.standardError = FileHandle.nullDevice
    guard (try? pkgConfig.run()) != nil else { return 1 }
    pkgConfig.waitUntilExit()
    let version = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return Int(version.split(separator: ".").first ?? "") ?? 1
}
let gpioBackend: [SwiftSetting] = libgpiodMajorVersion() >= 2 ? [.define("TACTUS_LIBGPIOD2")] : []

// Layers (see README "Layout"), bottom up, each target depending only on those below it:
// TactusArithmetic, TactusMusic, TactusTimeline, TactusInstrument, TactusScreen and
// ClickEngine are pure Swift with no C imports and no I/O; HAL and its drivers sit beside
// them on TactusBase; TactusApp wires them to hardware and files.
let package = Package(
    name: "Tactus",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "TactusArithmetic", targets: ["TactusArithmetic"]),
        .library(name: "TactusMusic", targets: ["TactusMusic"]),
        .library(name: "TactusTimeline", targets: ["TactusTimeline"]),
        .library(name: "TactusInstrument", targets: ["TactusInstrument"]),
        .library(name: "TactusWire", targets: ["TactusWire"]),
        .library(name: "TactusScreen", targets: ["TactusScreen"]),
        .library(name: "ClickEngine", targets: ["ClickEngine"]),
        .executable(name: "tactus", targets: ["tactus"]),
        .executable(name: "tactus-web", targets: ["tactus-web"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        // Only the companion (`tactus-web`, its own process) uses these: the box binary never
        // links Hummingbird, NIO or Foundation. Default traits off: no swift-configuration or
        // full Foundation, a smaller binary that idles near 20 MB RSS.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    ],
    targets: [
        // The TOML reader and writer for config, board and settings files: pure Swift,
        // bounded in size and depth, with errors that name file, line, field and value.
        .target(name: "TOMLReader"),
        // The base both floors use: monotonic time, 1-bit bitmaps (screen frames), the
        // indicator channels. No logic of the box, no I/O.
        .target(name: "TactusBase"),
        // The pure core, bottom up. Exact arithmetic: Rational, fixed decimals, sample times,
        // double-double and the big-number fallback (BigInt, BigFraction).
        .target(name: "TactusArithmetic"),
        // The musical model: tempo, meter, beat unit, accents, subdivisions, volumes, grooves,
        // poly layers, the bar pattern, setting names; songs, song files, klick tempo maps.
        .target(name: "TactusMusic", dependencies: ["TactusArithmetic", "TOMLReader"]),
        // The one timeline: where beat x is and what is played there (BeatGrid: steady and
        // song pieces; the half-sample rule; song timing; the audio output clock).
        .target(name: "TactusTimeline", dependencies: ["TactusArithmetic", "TactusMusic"]),
        // MIDI 1.0 on the wire: the messages the box sends and understands and the byte
        // parser. Pure and dependency-free, so the OS layer's MIDI threads use it without
        // seeing the domain.
        .target(name: "MIDIWire"),
        // The control protocol (issue 29): every command and field name, the JSON reader and
        // the one JSON writer; shared by the box (ControlHub), `tactus ctl` and tactus-web,
        // and generated for the pages (share/web/protocol.js).
        .target(name: "TactusWire", dependencies: ["TactusBase"]),
        // The instrument: input decoding, wheel and tap, the box's state machine (reducer),
        // menu, configuration and settings files, indicator scheduling, the companion's model.
        .target(name: "TactusInstrument", dependencies: ["TactusBase", "TOMLReader", "TactusArithmetic", "TactusMusic", "TactusTimeline", "MIDIWire", "Coach", "TactusWire"]),
        // The screen: fonts, icons, image formats, the screen model, pages and pendulum.
        .target(name: "TactusScreen", dependencies: ["TactusBase", "TactusArithmetic", "TactusMusic", "TactusTimeline", "TactusInstrument", "Coach"]),
        .target(name: "ClickEngine", dependencies: ["TactusBase", "TactusArithmetic", "TactusMusic", "TactusTimeline", "MIDIWire"]),
        // The coach's ears (issue 22): onset detector, click-bleed fit, hit matcher and
        // statistics, and the synthetic takes its tests measure. Pure Swift, no imports.
        .target(name: "Coach"),

        // Hardware layers (issue 4). HAL: protocols and value types only, no C imports.
        // Devices: drivers written against HAL alone. LinuxHAL: the only OS code.
        // SimHAL: the same protocols in memory, for tests and `tactus simulate`.
        // HAL uses TactusBase for frame and time types and nothing else (never the core, no
        // file formats: boards/*.toml is read by BoardFiles, above it).
        .target(name: "HAL", dependencies: ["TactusBase"]),
        // boards/*.toml into HAL's BoardDefinition, and the wiring diagram drawn from it.
        .target(name: "BoardFiles", dependencies: ["TactusBase", "HAL", "TOMLReader"]),
        .target(name: "Devices", dependencies: ["TactusBase", "HAL"]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CGPIOD", pkgConfig: "libgpiod", providers: [.apt(["libgpiod-dev"])]),
        // libi2c-dev ships no .pc file: the module map links libi2c itself.
        .systemLibrary(name: "CI2C", providers: [.apt(["libi2c-dev"])]),
        // The few glibc calls Swift cannot import (pthread_setname_np, prctl).
        .target(name: "CLinuxShim"),
        // Ableton Link (Debian's ableton-link-dev headers, GPL-2.0-or-later) behind a C
        // interface of our own: Swift cannot import ableton::Link itself.
        .target(name: "CLink",
                cxxSettings: [.define("LINK_PLATFORM_LINUX", to: "1")],
                linkerSettings: [.linkedLibrary("m"), .linkedLibrary("stdc++")]),
        // Devices only for HardwareCheck (`tactus check`), which drives the real display.
        // GPIO/*V2.swift is the libgpiod 2 backend, compiled when gpioBackend defines it.
        .target(name: "LinuxHAL", dependencies: ["TactusBase", "MIDIWire", "HAL", "Devices", "CALSA", "CGPIOD", "CI2C", "CLinuxShim", "CLink"],
                swiftSettings: gpioBackend),
        // The settings file and the practice log on disk: the instrument's codecs over
        // LinuxHAL's atomic, fsynced files (above the OS layer, which knows no file format).
        .target(name: "TactusStorage", dependencies: ["TactusBase", "TactusInstrument", "LinuxHAL"]),
        .target(name: "SimHAL", dependencies: ["TactusBase", "HAL"]),
        // The box: services and wiring, written against HAL only, so `tactus run` (LinuxHAL
        // parts) and `tactus simulate` (SimHAL parts) share every line of it.
        .target(
            name: "TactusApp",
            dependencies: [
                "TactusBase", "TactusArithmetic", "TactusMusic", "TactusTimeline", "TactusInstrument", "TactusScreen",
                "ClickEngine", "Coach", "HAL", "Devices", "SimHAL", "TOMLReader", "CLinuxShim", "MIDIWire", "TactusWire",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // `tactus simulate --headless`: the box of TactusApp on simulated time, SimHAL parts
        // and a script of inputs; writes audio, events and frames.
        .target(
            name: "TactusSimulation",
            dependencies: [
                "TactusBase", "TactusArithmetic", "TactusMusic", "TactusTimeline", "TactusInstrument", "ClickEngine", "Coach", "HAL", "SimHAL", "TOMLReader", "TactusApp", "MIDIWire", "TactusWire",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "tactus",
            dependencies: [
                "TactusBase", "TactusArithmetic", "TactusMusic", "TactusTimeline", "TactusInstrument", "TactusScreen",
                "TOMLReader", "ClickEngine", "Coach", "HAL", "BoardFiles", "LinuxHAL", "TactusStorage", "SimHAL", "Devices", "TactusApp", "TactusSimulation", "TactusCommandLine",
                "MIDIWire", "TactusWire",
                // SO_PEERCRED for `tactus ctl` (who serves the socket).
                "CLinuxShim",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The browser companion (issue 23): HTTP and WebSocket in front of the box's control
        // socket. It holds no box state and reads no box files; everything goes through the box.
        .executableTarget(
            name: "tactus-web",
            dependencies: [
                "TactusWire",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            ]
        ),
        // Every reader of outside input as a fuzz target (bytes in, one-line error or a value
        // that renders); tactus-fuzz is the libFuzzer binary (scripts/fuzz.sh builds it with
        // -sanitize=fuzzer,address -D FUZZING) and, built plainly, a replayer of files.
        // What the command line reads beside its flags (change scripts), shared with the fuzzers.
        .target(name: "TactusCommandLine", dependencies: ["TactusBase", "TOMLReader", "TactusArithmetic", "TactusMusic"]),
        .target(name: "FuzzTargets", dependencies: ["TactusBase", "TOMLReader", "TactusArithmetic", "TactusMusic", "TactusTimeline", "TactusInstrument", "ClickEngine", "HAL", "BoardFiles", "TactusApp",
                                                    "TactusSimulation", "TactusCommandLine", "MIDIWire", "TactusWire", .product(name: "Logging", package: "swift-log")]),
        .executableTarget(name: "tactus-fuzz", dependencies: ["FuzzTargets"]),
        .executableTarget(
            name: "tactus-bench",
            dependencies: ["TactusBase", "TactusMusic", "TactusTimeline", "ClickEngine", "RealtimeAudit"],
            path: "Benchmarks/RenderBench"
        ),
        // The coach against aubio on the same synthetic takes, and its live cost.
        .executableTarget(
            name: "tactus-coach-bench",
            dependencies: ["Coach", "TestSupport", "ClickEngine", "TactusMusic", "TactusTimeline", "RealtimeAudit"],
            path: "Benchmarks/CoachBench"
        ),
        // The hand model: detents and time to reach a tempo on Tactus's wheel and two others.
        .executableTarget(
            name: "tactus-wheel-bench",
            dependencies: ["TactusBase", "TactusInstrument", "TestSupport"],
            path: "Benchmarks/WheelBench"
        ),
        // Screen frame pacing over the simulated I2C bus: bytes per frame, fps at 400 kHz.
        .executableTarget(
            name: "tactus-screen-bench",
            dependencies: ["TactusBase", "TactusMusic", "TactusScreen", "HAL", "Devices", "SimHAL", "TactusApp"],
            path: "Benchmarks/ScreenBench"
        ),
        // The MIDI clock thread's lateness against its deadlines with every core busy.
        .executableTarget(
            name: "tactus-midi-bench",
            dependencies: ["TactusBase", "MIDIWire", "HAL", "LinuxHAL", "ClickEngine", "TactusApp", "TactusMusic"],
            path: "Benchmarks/MIDIBench"
        ),
        // Following a MIDI clock: MIDIClockFollower against a plain DLL on seeded clock streams.
        .executableTarget(
            name: "tactus-follow-bench",
            dependencies: ["TactusTimeline", "TestSupport"],
            path: "Benchmarks/FollowBench"
        ),
        // A Link peer written against our C API, for the Link tests (Tests/Link).
        .executableTarget(name: "tactus-link-peer", dependencies: ["CLink"], path: "Tests/LinkPeer"),
        // Interposes malloc and pthread_mutex_lock inside the test binary so tests can
        // prove the render thread neither allocates nor locks.
        .target(name: "RealtimeAudit", path: "Tests/RealtimeAudit"),
        // Helpers shared by the test targets (a seeded random generator).
        // (and the coach's synthetic takes on the engine's grid, for its tests and bench).
        .target(name: "TestSupport", dependencies: ["Coach", "ClickEngine", "TactusArithmetic", "TactusMusic", "TactusTimeline"], path: "Tests/TestSupport"),
        .testTarget(name: "TOMLReaderTests", dependencies: ["TestSupport", "TOMLReader"]),
        .testTarget(name: "TactusMusicTests", dependencies: ["TactusBase", "TestSupport", "TOMLReader", "TactusArithmetic", "TactusMusic", "TactusTimeline"]),
        .testTarget(name: "TactusInstrumentTests", dependencies: ["TactusBase", "TestSupport", "TactusArithmetic", "TactusMusic", "TactusTimeline",
                                                               "TactusInstrument", "TactusScreen", "TOMLReader", "Coach", "MIDIWire", "TactusWire"]),
        .testTarget(name: "ClickEngineTests", dependencies: ["TactusBase", "TestSupport", "ClickEngine", "TactusArithmetic", "TactusMusic", "TactusTimeline",
                                                          "RealtimeAudit", "MIDIWire"]),
        .testTarget(name: "HALTests", dependencies: ["TactusBase", "TestSupport", "HAL", "SimHAL", "TactusInstrument"]),
        // One test target per library target (issue 29), each named <Target>Tests.
        .testTarget(name: "TactusBaseTests", dependencies: ["TactusBase"]),
        .testTarget(name: "MIDIWireTests", dependencies: ["MIDIWire"]),
        .testTarget(name: "TactusWireTests", dependencies: ["TactusBase", "TactusWire"]),
        .testTarget(name: "TactusStorageTests", dependencies: ["TactusBase", "TestSupport", "TactusMusic", "TactusInstrument", "LinuxHAL", "TactusStorage"]),
        .testTarget(name: "TactusArithmeticTests", dependencies: ["TactusBase", "TestSupport", "TactusArithmetic"]),
        .testTarget(name: "TactusTimelineTests", dependencies: ["TactusBase", "TestSupport", "TOMLReader", "TactusArithmetic", "TactusMusic", "TactusTimeline"]),
        .testTarget(name: "DevicesTests", dependencies: ["TactusBase", "HAL", "Devices", "SimHAL"]),
        .testTarget(name: "SimHALTests", dependencies: ["TactusBase", "TestSupport", "HAL", "Devices", "SimHAL", "TactusInstrument", "TactusScreen"]),
        .testTarget(name: "BoardFilesTests", dependencies: ["TactusBase", "HAL", "TOMLReader", "BoardFiles", "TactusInstrument"]),
        .testTarget(name: "TactusCommandLineTests", dependencies: ["TOMLReader", "TactusArithmetic", "TactusMusic", "TactusCommandLine"]),
        .testTarget(name: "TactusSimulationTests", dependencies: [
            "TactusBase", "TactusArithmetic", "TactusMusic", "TactusInstrument", "TactusScreen", "HAL", "TactusApp", "TactusSimulation",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The layering rules of issue 29 (Package.swift and every import; no build of the code).
        .testTarget(name: "PackageRulesTests"),
        .testTarget(name: "LinuxHALTests", dependencies: ["TactusBase", "TactusMusic", "TactusTimeline", "TactusInstrument", "ClickEngine", "HAL", "BoardFiles", "LinuxHAL", "Devices", "SimHAL", "RealtimeAudit",
                                                        "Coach", "TactusApp", "MIDIWire", "TestSupport"]),
        .testTarget(name: "ScreenTests", dependencies: ["TactusBase", "TactusArithmetic", "TactusMusic", "TactusTimeline", "TactusInstrument", "TactusScreen", "Coach", "ClickEngine", "HAL", "Devices", "SimHAL", "TactusApp"],
                    exclude: ["Snapshots"]),
        .testTarget(name: "TactusAppTests", dependencies: [
            "TactusBase", "TactusApp", "TactusSimulation", "TOMLReader", "TactusArithmetic", "TactusMusic", "TactusTimeline", "TactusInstrument", "TactusScreen", "ClickEngine", "Coach", "HAL", "Devices", "SimHAL", "LinuxHAL",
            "TactusStorage", "MIDIWire", "TactusWire",
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
        ]),
        // Seeded, bounded fuzzing of every parser of user input (`swift test --filter Fuzz`).
        // The corpora and every crash the fuzzers found (Fuzz/) replay here too.
        .testTarget(name: "FuzzTests", dependencies: ["TactusBase", "TestSupport", "TOMLReader", "TactusArithmetic", "TactusMusic", "TactusTimeline", "TactusInstrument", "ClickEngine", "HAL", "BoardFiles", "TactusApp", "TactusSimulation", "TactusCommandLine", "FuzzTargets", "MIDIWire"]),
        .testTarget(name: "CoachTests", dependencies: ["TestSupport", "Coach", "ClickEngine", "TactusMusic", "TactusTimeline", "RealtimeAudit"]),
        .testTarget(name: "tactusTests", dependencies: ["TactusBase", "TestSupport", "TactusMusic", "TactusTimeline", "TactusInstrument", "ClickEngine", "Coach"]),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
