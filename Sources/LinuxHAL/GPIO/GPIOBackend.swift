// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import TactusBase

// GPIO is written once (GPIOInputs.swift, GPIOOutputs.swift: threads, priority, edge order,
// overflow recovery, the stop rule, errors) over this small protocol. The two libgpiod API
// bindings are the only difference: LibgpiodV1.swift (libgpiod 1.6, Debian 12) and
// LibgpiodV2.swift (libgpiod 2, Debian 13 and bookworm-backports). Package.swift defines
// TACTUS_LIBGPIOD2 when pkg-config reports libgpiod >= 2; only that binding is compiled.
#if TACTUS_LIBGPIOD2
typealias Libgpiod = LibgpiodV2
#else
typealias Libgpiod = LibgpiodV1
#endif

/// One libgpiod API: requests on one open chip (each binding has its own `GPIOChip`).
protocol GPIOBackend {
    associatedtype Inputs: GPIOInputLines
    associatedtype Outputs: GPIOOutputLines
    /// "libgpiod x.y", for `tactus check`.
    static var libraryDescription: String { get }
    /// Requests `definitions` (all on `chip`) as both-edge inputs, levels electrical (no
    /// active-low flag: the edge keeps both the raw level and the logical state), timestamps
    /// on CLOCK_MONOTONIC. The lines are released when the result goes.
    static func requestInputs(_ definitions: [InputLineDefinition], on chip: GPIOChip) throws(HALError) -> Inputs
    /// Requests `definitions` (all on `chip`) as outputs, off from the first instant. The
    /// lines are released when the result goes.
    static func requestOutputs(_ definitions: [OutputLineDefinition], on chip: GPIOChip) throws(HALError) -> Outputs
}

/// Requested input lines on one chip.
protocol GPIOInputLines: AnyObject {
    var definitions: [InputLineDefinition] { get }
    /// What to poll for edges: libgpiod 1 has a queue (descriptor) per line, libgpiod 2 one
    /// per request.
    var descriptors: [Int32] { get }
    /// Reads one buffer of the edges queued behind `descriptors[index]` into `batch`, and adds
    /// to `mayHaveLost` the roles whose kernel queue may have overflowed. Returns how many
    /// edges were read, or nil when the read failed (errno says why).
    func readEdges(from index: Int, into batch: inout EdgeBatch, mayHaveLost: inout Set<InputRole>) -> Int?
    /// The electrical level (true = high) of `definition`'s line now; nil when it cannot be
    /// read (errno says why).
    func level(of definition: InputLineDefinition) -> Bool?
}

/// Requested output lines on one chip.
protocol GPIOOutputLines: AnyObject {
    /// Drives `indicator`'s line, true = on (active-low lines go low).
    func set(_ indicator: IndicatorChannel, on: Bool)
}

/// The distinct chip labels of `labels`, in first-seen order.
func chipLabels(_ labels: [String]) -> [String] {
    var distinct: [String] = []
    for label in labels where !distinct.contains(label) { distinct.append(label) }
    return distinct
}

/// The library this build uses, for `tactus check`.
let gpioLibraryDescription = Libgpiod.libraryDescription
