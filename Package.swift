// swift-tools-version:6.1
import PackageDescription

// Layers (see README "Layout"): TactusCore and ClickEngine are pure Swift with no C
// imports and no I/O; the executable wires them to files and, later, to hardware.
let package = Package(
    name: "Tactus",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "TactusCore", targets: ["TactusCore"]),
        .library(name: "ClickEngine", targets: ["ClickEngine"]),
        .executable(name: "tactus", targets: ["tactus"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .target(name: "TactusCore"),
        .target(name: "ClickEngine", dependencies: ["TactusCore"]),
        .target(name: "LinuxHAL", dependencies: ["TactusCore"]),
        .executableTarget(
            name: "tactus",
            dependencies: [
                "TactusCore", "ClickEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Interposes malloc and pthread_mutex_lock inside the test binary so tests can
        // prove the render thread neither allocates nor locks.
        .target(name: "RealtimeAudit", path: "Tests/RealtimeAudit"),
        .testTarget(name: "TactusCoreTests", dependencies: ["TactusCore"]),
        .testTarget(name: "LinuxHALTests", dependencies: ["LinuxHAL", "TactusCore"]),
        .testTarget(name: "ClickEngineTests", dependencies: ["ClickEngine", "TactusCore", "RealtimeAudit"]),
        .testTarget(name: "tactusTests", dependencies: ["TactusCore", "ClickEngine"]),
    ],
    swiftLanguageModes: [.v6]
)
