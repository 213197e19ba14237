import Synchronization

/// Ids for requests that bring none: version-4 UUID text, unique within the process (a counter
/// mixed through a bijection) and, from a random start, across instances. Not secret, so not from
/// the system's random generator: Foundation's `UUID()` asks the kernel for bytes and formats
/// them with `snprintf`, OpenSSL's generator costs 6,600 instructions, and either was a tenth of
/// a health check.
enum RequestID {
    private static let start = (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))
    private static let counter = Atomic<UInt64>(0)

    static func next() -> String {
        let n = counter.add(1, ordering: .relaxed).newValue
        return text(high: mix(n ^ start.0), low: mix(n &+ start.1))
    }

    /// SplitMix64's finalizer: a bijection on 64 bits, so distinct counters give distinct ids.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx` in lowercase, with the version and variant bits set.
    static func text(high: UInt64, low: UInt64) -> String {
        let high = high & 0xffff_ffff_ffff_0fff | 0x0000_0000_0000_4000
        let low = low & 0x3fff_ffff_ffff_ffff | 0x8000_0000_0000_0000
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 36) { text in
            // The digits of each group written from the word's top nibble down, the dashes
            // between: one shift and one table read a digit.
            var at = 0
            func put(_ word: UInt64, nibbles: ClosedRange<Int>) {
                for nibble in nibbles {
                    text[at] = digits.utf8Start[Int(truncatingIfNeeded: word >> UInt64(60 - 4 * nibble)) & 0xf]
                    at += 1
                }
            }
            func dash() {
                text[at] = UInt8(ascii: "-")
                at += 1
            }
            put(high, nibbles: 0...7)
            dash()
            put(high, nibbles: 8...11)
            dash()
            put(high, nibbles: 12...15)
            dash()
            put(low, nibbles: 0...3)
            dash()
            put(low, nibbles: 4...15)
            return at
        }
    }
}
