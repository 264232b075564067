// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
@testable import TactusInstrument
import TactusBase

@Suite struct ButtonGesturesTests {
    typealias E = ButtonGestures.Event

    func e(_ g: ButtonGesture, _ t: Int64) -> E { E(gesture: g, at: ms(t)) }

    @Test func shortPressWithoutDoubleRecognitionIsImmediate() {
        var b = ButtonGestures(recognisesDoublePress: false)
        #expect(b.edge(pressed: true, at: ms(1000)) == [e(.press, 1000)])
        #expect(b.edge(pressed: false, at: ms(1100)) == [e(.release, 1100), e(.shortPress, 1100)])
        #expect(b.nextDeadline == nil)
    }

    @Test func bounceIsIgnoredAndPressKeepsItsFirstEdgeTime() {
        var b = ButtonGestures(recognisesDoublePress: false)
        var events: [E] = []
        // Closing contact chatters for 3 ms, opening contact for 2 ms.
        for (pressed, t) in [(true, 1000), (false, 1001), (true, 1002), (false, 1003), (true, 1003)] as [(Bool, Int64)] {
            events += b.edge(pressed: pressed, at: ms(t))
        }
        for (pressed, t) in [(false, 1200), (true, 1201), (false, 1202)] as [(Bool, Int64)] {
            events += b.edge(pressed: pressed, at: ms(t))
        }
        events += b.advance(to: ms(2000))
        #expect(events == [e(.press, 1000), e(.release, 1200), e(.shortPress, 1200)])
    }

    @Test func levelLeftDifferentAfterBounceIsSettledByTime() {
        var b = ButtonGestures(recognisesDoublePress: false)
        _ = b.edge(pressed: true, at: ms(1000))
        // A real, very quick release inside the lockout: accepted when the lockout ends.
        #expect(b.edge(pressed: false, at: ms(1004)) == [])
        #expect(b.nextDeadline == ms(1008))
        #expect(b.advance(to: ms(1007)) == [])
        #expect(b.advance(to: ms(1008)) == [e(.release, 1008), e(.shortPress, 1008)])
        #expect(!b.isPressed)
    }

    @Test func longPressFiresWhileHeldAndReleaseIsSilent() {
        var b = ButtonGestures(recognisesDoublePress: true)
        _ = b.edge(pressed: true, at: ms(1000))
        #expect(b.nextDeadline == ms(1600))
        #expect(b.advance(to: ms(1599)) == [])
        #expect(b.advance(to: ms(1650)) == [e(.longPress, 1600)])
        #expect(b.edge(pressed: false, at: ms(2000)) == [e(.release, 2000)])
        #expect(b.advance(to: ms(5000)) == [])
    }

    @Test func shortPressWaitsForTheDoublePressWindow() {
        var b = ButtonGestures(recognisesDoublePress: true)
        _ = b.edge(pressed: true, at: ms(1000))
        #expect(b.edge(pressed: false, at: ms(1100)) == [e(.release, 1100)])
        // Due just after the window: a press at exactly 1400 would still be a double press.
        #expect(b.nextDeadline == ms(1400) + .nanoseconds(1))
        #expect(b.advance(to: ms(1400)) == [])
        // Advancing to the deadline it announced does fire (a loop waiting for it never spins).
        #expect(b.advance(to: b.nextDeadline!) == [e(.shortPress, 1400)])
    }

    @Test func doublePress() {
        var b = ButtonGestures(recognisesDoublePress: true)
        var events: [E] = []
        events += b.edge(pressed: true, at: ms(1000))
        events += b.edge(pressed: false, at: ms(1100))
        events += b.edge(pressed: true, at: ms(1300))
        events += b.edge(pressed: false, at: ms(1400))
        events += b.advance(to: ms(3000))  // even held long enough, nothing more fires
        #expect(events == [e(.press, 1000), e(.release, 1100), e(.press, 1300), e(.doublePress, 1300), e(.release, 1400)])
    }

    @Test func secondPressTooLateIsTwoShortPresses() {
        var b = ButtonGestures(recognisesDoublePress: true)
        var events: [E] = []
        events += b.edge(pressed: true, at: ms(1000))
        events += b.edge(pressed: false, at: ms(1100))
        events += b.edge(pressed: true, at: ms(1450))
        events += b.edge(pressed: false, at: ms(1500))
        events += b.advance(to: ms(2000))
        #expect(events.filter { $0.gesture == .shortPress } == [e(.shortPress, 1400), e(.shortPress, 1800)])
        #expect(!events.contains { $0.gesture == .doublePress })
    }
}
