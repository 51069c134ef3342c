/*
 * crc32c.h - CRC-32C (Castagnoli), the checksum of model files and of .rvl
 * recording blocks. Table-driven, byte at a time: these checksums cover
 * kilobytes per second, not a hot path.
 */
#ifndef RV_BASE_CRC32C_H
#define RV_BASE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continues crc over n bytes; start with crc = 0. crc32c("123456789") = 0xe3069283. */
uint32_t rv_crc32c(uint32_t crc, const void *data, size_t n);

#endif
