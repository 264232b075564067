// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Glibc
import HAL
import Logging
import SimHAL
import Testing
@testable import TactusApp
import TactusInstrument
import TactusBase

/// The box is touched by one thread, checked in debug builds (as NIO's preconditionInEventLoop).
@Suite struct BoxThreadTests {
    static func makeBox() throws -> Box {
        let clock = ManualClock(start: .zero)
        let sink = OfflineAudioSink(clock: clock)
        let parts = BoxParts(board: testBoard(), configuration: ConfigurationFile(), audio: try AudioOutput(device: sink, silent: sink),
                             input: ScriptedInput(), display: nil, indicators: SimulatedIndicators(),
                             persistence: RecordingPersistence(), clock: clock)
        return try BoxAssembly.makeBox(parts, saved: SavedState(), problem: nil, logger: Logger(label: "test"))
    }

    /// Runs `body` on a new thread and waits for it.
    static func onAnotherThread(_ body: @escaping () -> Void) {
        final class Work { let body: () -> Void; init(_ body: @escaping () -> Void) { self.body = body } }
        var thread = pthread_t()
        let work = Unmanaged.passRetained(Work(body)).toOpaque()
        pthread_create(&thread, nil, { argument in
            let work = Unmanaged<Work>.fromOpaque(argument!).takeRetainedValue()
            work.body()
            return nil
        }, work)
        pthread_join(thread, nil)
    }

    #if DEBUG
    @Test func aSecondThreadTouchingTheBoxStopsADebugBuild() async {
        await #expect(processExitsWith: .failure) {
            let box = try BoxThreadTests.makeBox()
            box.advance(to: .zero)
            BoxThreadTests.onAnotherThread { box.advance(to: MonotonicTime(nanoseconds: 1)) }
        }
    }
    #endif

    /// Taking the box over (what ControlLoop's thread does when it starts) moves it legally.
    @Test func aThreadThatTakesTheBoxOverMayUseIt() throws {
        let box = try Self.makeBox()
        box.advance(to: .zero)
        var advanced = false
        Self.onAnotherThread {
            box.takeOver()
            box.advance(to: MonotonicTime(nanoseconds: 1_000_000))
            advanced = true
        }
        #expect(advanced)
    }
}
