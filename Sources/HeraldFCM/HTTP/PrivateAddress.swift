/// Addresses a request to a stranger's URL (a webhook receiver) must not reach: loopback, private
/// networks, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, unspecified and
/// multicast. Checked on the address libcurl is about to connect to, after DNS, so a name that
/// resolves (or re-resolves) to one is refused as surely as the address itself.
public enum PrivateAddress {
    /// Why `bytes` (4 for IPv4, 16 for IPv6) is not a public address, or nil when it is.
    public static func reason(_ bytes: [UInt8]) -> String? {
        switch bytes.count {
        case 4: return reasonIPv4(bytes)
        case 16:
            // An IPv4 address mapped into IPv6 is that IPv4 address.
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return reasonIPv4(Array(bytes[12...])) }
            if bytes.allSatisfy({ $0 == 0 }) { return "the unspecified address" }
            if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return "a loopback address" }
            if bytes[0] & 0xFE == 0xFC { return "a private (unique local) address" }
            if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return "a link-local address" }
            if bytes[0] == 0xFF { return "a multicast address" }
            return nil
        default: return "not an IP address"
        }
    }

    private static func reasonIPv4(_ b: [UInt8]) -> String? {
        switch (b[0], b[1]) {
        case (0, _): "the unspecified network 0.0.0.0/8"
        case (127, _): "a loopback address"
        case (10, _), (172, 16...31), (192, 168): "a private network address"
        case (169, 254): "a link-local address (where cloud metadata services answer)"
        case (100, 64...127): "a carrier-grade NAT address"
        case (224...255, _): "a multicast or reserved address"
        default: nil
        }
    }
}
