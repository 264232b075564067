// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TactusBase
import TestSupport

/// The sample-to-host-time map against a fake device whose crystal runs off the host clock
/// and whose period timestamps jitter: every click's mapped (heard) time is compared with
/// when the device really plays that sample.
@Suite struct SampleClockFilterTests {
    /// A device playing sample `h` at `origin + h x truePeriod`; every period the render loop
    /// writes `period` frames and reads the status: `buffered` frames queued plus the driver's
    /// `driverLatency` (its FIFO/codec, which ALSA's delay includes), timestamped with uniform
    /// jitter of +-`jitter` ns.
    struct FakeDevice {
        var rate = 48000
        var ppm: Double
        var period: Int64
        var jitter: Double = 1_000_000
        var buffered: Int64 { 3 * period }
        let driverLatency: Int64 = 100
        let origin: Double = 7_654_321_000_000
        var truePeriod: Double { 1e9 / (Double(rate) * (1 + ppm * 1e-6)) }
        func heard(_ sample: Int64) -> Double { origin + Double(sample) * truePeriod }
    }

    struct Figures {
        var maxError = 0.0, meanError = 0.0, sdError = 0.0, clicks = 0
        var rawSD = 0.0, ppmError = 0.0
    }

    /// One simulated run: a click every half second; each click's time is read from the map
    /// as it is when the click's period is written (as the box places it), from `settle` on.
    static func run(_ device: FakeDevice, seconds: Double, settle: Double = 10, seed: UInt64) -> Figures {
        var random = SplitMix64(state: seed)
        var map = SampleClockFilter(sampleRate: device.rate)
        let rate = Int64(device.rate)
        let clickEvery = rate / 2
        var nextClick: Int64 = 0
        var written: Int64 = device.buffered  // the buffer was filled before the stream started
        var errors: [Double] = [], raw: [Double] = []
        var figures = Figures()
        while Double(written) < seconds * Double(rate) {
            written += device.period
            // The device's position at the status read: what has left it, with the driver's part.
            let heard = written - device.buffered - device.driverLatency
            let noise = Double.random(in: -device.jitter...device.jitter, using: &random)
            let stamp = device.heard(heard) + noise
            raw.append(noise)
            map.observe(framesWritten: written, delayFrames: device.buffered + device.driverLatency, at: Int64(stamp.rounded()))
            while nextClick < written {
                if Double(nextClick) >= settle * Double(rate) {
                    let error = (map.nanoseconds(atSample: nextClick) - device.heard(nextClick)) / 1e6
                    errors.append(error)
                    figures.maxError = max(figures.maxError, abs(error))
                }
                nextClick += clickEvery
            }
        }
        figures.clicks = errors.count
        figures.meanError = errors.reduce(0, +) / Double(errors.count)
        figures.sdError = (errors.map { ($0 - figures.meanError) * ($0 - figures.meanError) }.reduce(0, +) / Double(errors.count)).squareRoot()
        figures.rawSD = (raw.map { $0 * $0 }.reduce(0, +) / Double(raw.count)).squareRoot() / 1e6
        figures.ppmError = (map.nanosecondsPerSample / device.truePeriod - 1) * 1e6
        return figures
    }

    @Test(arguments: [(100.0, Int64(128)), (-100.0, 128), (100.0, 512), (-100.0, 512)])
    func anHourOfClicksStaysWithinATenthOfAMillisecond(ppm: Double, period: Int64) {
        let device = FakeDevice(ppm: ppm, period: period)
        let f = Self.run(device, seconds: 3600, seed: UInt64(period) &+ UInt64(ppm + 1000))
        print("map over an hour, \(ppm) ppm, period \(period): \(f.clicks) clicks, max error \(f.maxError) ms, mean \(f.meanError) ms, SD \(f.sdError) ms (timestamp jitter SD \(f.rawSD) ms); rate off by \(f.ppmError) ppm at the end")
        #expect(f.clicks == 2 * 3600 - 20)
        #expect(f.maxError < 0.1)
        // The jitter does not pass through: the timestamps' own SD is about 0.58 ms.
        #expect(f.rawSD > 0.5)
        #expect(f.sdError < 0.05)
        #expect(abs(f.ppmError) < 5)
    }

    /// Without the delay (what is written, not what is heard) every click would be placed
    /// 3 periods and the driver's latency early: the map carries the latency.
    @Test func theOutputLatencyIsPartOfTheMap() {
        var map = SampleClockFilter(sampleRate: 48000)
        map.observe(framesWritten: 4800, delayFrames: 480, at: 1_000_000_000)
        #expect(map.anchorSample == 4320)
        #expect(map.nanoseconds(atSample: 4800) == 1_010_000_000)
    }

    @Test func aJumpRestartsTheLineButOneStallDoesNot() {
        var map = SampleClockFilter(sampleRate: 48000)
        for k in Int64(0)..<100 { map.observe(heardSample: k * 480, at: 1_000_000_000 + k * 10_000_000) }
        #expect(map.count == 100)
        // One reading 30 ms late (a stall between the pointer and the clock): skipped.
        map.observe(heardSample: 100 * 480, at: 1_000_000_000 + 100 * 10_000_000 + 30_000_000)
        #expect(map.count == 100)
        #expect(abs(map.nanoseconds(atSample: 101 * 480) - 2_010_000_000) < 1)
        map.observe(heardSample: 101 * 480, at: 1_000_000_000 + 101 * 10_000_000)
        #expect(map.count == 101)
        // Frames dropped for good: three readings off the line start it again at the third.
        for k in Int64(102)..<105 { map.observe(heardSample: k * 480 + 4800, at: 1_000_000_000 + k * 10_000_000) }
        #expect(map.count == 1)
        #expect(map.anchorSample == 104 * 480 + 4800)
        #expect(map.nanoseconds(atSample: 104 * 480 + 4800) == 2_040_000_000)
        // A position going back (a new stream counted from less) starts it again at once.
        map.observe(heardSample: 0, at: 2_050_000_000)
        #expect(map.count == 1 && map.anchorSample == 0)
    }

    /// The box reads the map through AudioOutputClock: the measured rate is used both ways.
    @Test func theClockUsesTheMeasuredRate() {
        let perSample = 1e9 / 48000 * (1 - 100e-6)
        let clock = AudioOutputClock(sampleRate: 48000, engineSample: 10_000, outputDelayFrames: 400, nanoseconds: 5_000_000_000,
                                     nanosecondsPerSample: perSample)
        let later = clock.outputNanoseconds(ofSample: 9600 + 48000)
        #expect(later == 5_000_000_000 + Int64((48000 * perSample).rounded(.up)))
        #expect(later == 5_999_900_000)
        #expect(abs(clock.heardSample(atNanoseconds: later) - Double(9600 + 48000)) < 1e-3)
    }
}
