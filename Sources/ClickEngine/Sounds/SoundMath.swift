// SPDX-License-Identifier: GPL-3.0-or-later
/// The few elementary functions the sound code needs, in plain Swift.
///
/// ClickEngine imports neither Foundation nor Glibc, so there is no libm here. Writing them
/// out also makes the synthesized sounds and resampling kernels bit-identical on every
/// platform (libm implementations differ in their last bits). Accuracy is a few ulps, far
/// beyond what audio at 24 bits needs.
enum SoundMath {
    // Cody-Waite split of pi/2 (fdlibm): the first part has 33 significant bits, so
    // k * pio2Hi is exact for any |k| < 2^20 and argument reduction loses nothing.
    private static let pio2Hi = 1.57079632673412561417e+00
    private static let pio2Lo = 6.07710050650619224932e-11
    private static let twoOverPi = 0.63661977236758134308

    /// sin(x); accurate to a few ulps for |x| < 1e6 (callers reduce phases to one cycle).
    static func sin(_ x: Double) -> Double {
        let (r, quadrant) = reduce(x)
        switch quadrant {
        case 0: return sinKernel(r)
        case 1: return cosKernel(r)
        case 2: return -sinKernel(r)
        default: return -cosKernel(r)
        }
    }

    /// cos(x); same accuracy as `sin`.
    static func cos(_ x: Double) -> Double {
        let (r, quadrant) = reduce(x)
        switch quadrant {
        case 0: return cosKernel(r)
        case 1: return -sinKernel(r)
        case 2: return -cosKernel(r)
        default: return sinKernel(r)
        }
    }

    /// sin(2 pi cycles), reducing to one cycle first so long phases stay exact.
    static func sinCycles(_ cycles: Double) -> Double {
        let fraction = cycles - cycles.rounded(.down)
        return sin(2 * Double.pi * fraction)
    }

    /// x = r + k * pi/2 with |r| <= pi/4; returns r and k mod 4.
    private static func reduce(_ x: Double) -> (Double, Int) {
        let k = (x * twoOverPi).rounded(.toNearestOrEven)
        let r = (x - k * pio2Hi) - k * pio2Lo
        let quadrant = Int(k.truncatingRemainder(dividingBy: 4))
        return (r, (quadrant + 4) % 4)
    }

    /// Taylor series of sin on [-pi/4, pi/4] up to x^17: truncation error < 1e-18.
    private static func sinKernel(_ x: Double) -> Double {
        let z = x * x
        var p = 1.0 / 355687428096000.0          // 1/17!
        p = p * z - 1.0 / 1307674368000.0          // 1/15!
        p = p * z + 1.0 / 6227020800.0             // 1/13!
        p = p * z - 1.0 / 39916800.0               // 1/11!
        p = p * z + 1.0 / 362880.0                 // 1/9!
        p = p * z - 1.0 / 5040.0                   // 1/7!
        p = p * z + 1.0 / 120.0                    // 1/5!
        p = p * z - 1.0 / 6.0                      // 1/3!
        return x + x * z * p
    }

    /// Taylor series of cos on [-pi/4, pi/4] up to x^18.
    private static func cosKernel(_ x: Double) -> Double {
        let z = x * x
        var p = -1.0 / 6402373705728000.0         // 1/18!
        p = p * z + 1.0 / 20922789888000.0         // 1/16!
        p = p * z - 1.0 / 87178291200.0            // 1/14!
        p = p * z + 1.0 / 479001600.0              // 1/12!
        p = p * z - 1.0 / 3628800.0                // 1/10!
        p = p * z + 1.0 / 40320.0                  // 1/8!
        p = p * z - 1.0 / 720.0                    // 1/6!
        p = p * z + 1.0 / 24.0                     // 1/4!
        return 1.0 - 0.5 * z + z * z * p
    }

    // ln 2 split the same way (fdlibm): k * ln2Hi is exact for the k range of exp.
    private static let ln2Hi = 6.93147180369123816490e-01
    private static let ln2Lo = 1.90821492927058770002e-10
    private static let invLn2 = 1.44269504088896338700e+00

    /// e^x. Underflows to 0 below -745, overflows to +infinity above 709.8.
    static func exp(_ x: Double) -> Double {
        if x.isNaN { return x }
        if x < -745.2 { return 0 }
        if x > 709.78 { return .infinity }
        let k = (x * invLn2).rounded(.toNearestOrEven)
        let r = (x - k * ln2Hi) - k * ln2Lo           // |r| <= ln2/2
        // Taylor series to r^14: truncation error < 1e-18 on |r| <= 0.347.
        // Horner's rule, written out: the same operations in the same order as a loop,
        // without an iterator (a debug build spent most of `tactus render`'s start-up here).
        let c = inverseFactorials
        var p = c[14] * r + c[13]
        p = p * r + c[12]; p = p * r + c[11]; p = p * r + c[10]; p = p * r + c[9]
        p = p * r + c[8]; p = p * r + c[7]; p = p * r + c[6]; p = p * r + c[5]
        p = p * r + c[4]; p = p * r + c[3]; p = p * r + c[2]; p = p * r + c[1]
        p = p * r + c[0]
        // Scale by 2^k in two steps so subnormal results and k = 1024 stay representable.
        let half = Int(k) / 2
        return p * Double(sign: .plus, exponent: half, significand: 1.0)
            * Double(sign: .plus, exponent: Int(k) - half, significand: 1.0)
    }

    /// 1/n! for n = 0...14.
    private static let inverseFactorials: [Double] = {
        var result = [1.0]
        var factorial = 1.0
        for n in 1...14 {
            factorial *= Double(n)
            result.append(1.0 / factorial)
        }
        return result
    }()

    /// Amplitude of a level in dBFS: 10^(dB/20).
    static func amplitude(decibels: Double) -> Double {
        exp(decibels * 0.11512925464970228420)         // ln(10)/20
    }

    /// Modified Bessel function of the first kind, order 0 (for the Kaiser window), by its
    /// power series sum ((x/2)^k / k!)^2, which converges quickly for the x < 20 used here.
    static func besselI0(_ x: Double) -> Double {
        let q = x * x / 4
        var term = 1.0
        var sum = 1.0
        var k = 1.0
        while term > sum * 1e-17 {
            term *= q / (k * k)
            sum += term
            k += 1
        }
        return sum
    }
}
