/*
 * crc32c.c - reflected CRC-32C, polynomial 0x82F63B78; the table is built
 * at compile time by a constant expression generator below.
 */
#include "base/crc32c.h"

#define POLY 0x82F63B78u
#define B1(c) (((c) >> 1) ^ (((c) & 1u) ? POLY : 0u))
#define B8(c) B1(B1(B1(B1(B1(B1(B1(B1(c))))))))
#define R4(i) B8(i), B8(i + 1), B8(i + 2), B8(i + 3)
#define R16(i) R4(i), R4(i + 4), R4(i + 8), R4(i + 12)
#define R64(i) R16(i), R16(i + 16), R16(i + 32), R16(i + 48)

static const uint32_t crc_table[256] = { R64(0u), R64(64u), R64(128u), R64(192u) };

uint32_t rv_crc32c(uint32_t crc, const void *data, size_t n)
{
	const uint8_t *p = data;

	crc = ~crc;
	while (n--)
		crc = crc_table[(crc ^ *p++) & 0xffu] ^ (crc >> 8);
	return ~crc;
}
