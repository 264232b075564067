// SPDX-License-Identifier: GPL-3.0-or-later
import FuzzTargets

// Built by scripts/fuzz.sh with -sanitize=fuzzer and -D FUZZING: libFuzzer supplies main()
// and calls this for every input; TACTUS_FUZZ_TARGET names the reader (FuzzTargets.all).
// The plain build (swift build) replays files instead: `tactus-fuzz TARGET FILE...`.
#if FUZZING
import Glibc

nonisolated(unsafe) private var selected: FuzzTargets.Target?

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    if selected == nil {
        let name = getenv("TACTUS_FUZZ_TARGET").map { String(cString: $0) } ?? ""
        guard let target = FuzzTargets.named(name) else {
            print("TACTUS_FUZZ_TARGET '\(name)' is not a target: \(FuzzTargets.all.map(\.name).joined(separator: ", "))")
            exit(2)
        }
        selected = target
    }
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    selected!.run(bytes)
    return 0
}

// SwiftPM links an executable target's entry as `<module>_main` (main is an alias of it),
// so libFuzzer is started from there through its driver entry point.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

@_cdecl("tactus_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var values = argv
    return runFuzzerDriver(&count, &values) { data, size in fuzzOneInput(data, size) }
}
#else
import Foundation

@main
struct Replay {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let target = FuzzTargets.named(name) else {
            FileHandle.standardError.write("usage: tactus-fuzz TARGET FILE...; targets: \(FuzzTargets.all.map(\.name).joined(separator: ", "))\n".data(using: .utf8)!)
            exit(2)
        }
        for path in arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            target.run([UInt8](data))
            print("ok \(path)")
        }
    }
}
#endif
