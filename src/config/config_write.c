/*
 * config_write.c - rv_config_write: the configuration as YAML that loads
 * back to the same struct, each key under its description and range as
 * comments. deploy/reveal.yaml is this output for the defaults. See
 * config.h.
 */
#include "config/config_int.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

enum { DOC_WIDTH = 78 };  /* comment lines are wrapped to this many columns */

static const char header[] =
	"# Configuration of the live agent, `reveal agent`.\n"
	"#\n"
	"# Every key is optional: a key left out keeps its default. Durations are\n"
	"# written like 100ms, 2s, 10m, 1h or 1d; sizes like 512KiB, 64MiB, 1GiB,\n"
	"# 1GB (10^9 bytes) or a plain number of bytes.\n";

/* A string as a YAML double-quoted scalar: printable ASCII as is, the rest
 * escaped (libyaml folds raw line breaks such as U+2028 inside quotes). */
static void write_quoted(FILE *f, const char *s, size_t len)
{
	fputc('"', f);
	for (size_t i = 0, l; i < len; i += l) {
		const unsigned char *u = (const unsigned char *)s + i;
		uint32_t cp;

		l = rv_cfg_utf8_next(u, len - i, &cp);
		if (l == 0) {  /* only in a struct that fails rv_config_check */
			l = 1;
			fprintf(f, "\\x%02x", u[0]);
		} else if (cp == '"' || cp == '\\') {
			fprintf(f, "\\%c", (char)cp);
		} else if (cp >= 0x20 && cp < 0x7f) {
			fputc((int)cp, f);
		} else if (cp < 0x100) {
			fprintf(f, "\\x%02" PRIx32, cp);
		} else if (cp < 0x10000) {
			fprintf(f, "\\u%04" PRIx32, cp);
		} else {
			fprintf(f, "\\U%08" PRIx32, cp);
		}
	}
	fputc('"', f);
}

/* doc and then more as comment lines wrapped at DOC_WIDTH columns. */
void rv_cfg_write_doc(FILE *f, int indent, const char *doc, const char *more)
{
	char text[CFG_LIST_TEXT_MAX * 2];
	size_t col = 0;

	snprintf(text, sizeof(text), "%s%s%s", doc, more[0] ? " " : "", more);
	for (const char *p = text; *p;) {
		size_t w = strcspn(p, " ");

		if (col > 0 && col + 1 + w > DOC_WIDTH) {
			fputc('\n', f);
			col = 0;
		}
		col += col == 0 ? (size_t)fprintf(f, "%*s#", indent, "") : 0;
		col += (size_t)fprintf(f, " %.*s", (int)w, p);
		p += w;
		p += strspn(p, " ");
	}
	fputc('\n', f);
}

void rv_cfg_write_value(FILE *f, const struct rv_cfg_key *k, const void *base)
{
	const char *field = (const char *)base + k->off;
	char text[CFG_TEXT_MAX];

	if (k->type == K_STR) {
		write_quoted(f, field, strnlen(field, k->size));
	} else if (k->type == K_LIST) {
		size_t n = rv_cfg_list_count(k, base), len;

		fputc('[', f);
		for (size_t i = 0; i < n && i < (size_t)k->max; i++) {
			const char *item = rv_cfg_list_item(k, base, i, &len);

			fputs(i ? ", " : "", f);
			write_quoted(f, item, len);
		}
		fputc(']', f);
	} else {
		rv_cfg_fmt_field(k, base, text, sizeof(text));
		fputs(text, f);
	}
}

int rv_config_write(FILE *f, const struct rv_config *c)
{
	const char *sect = NULL;
	char range[CFG_LIST_TEXT_MAX], more[CFG_LIST_TEXT_MAX + CFG_TEXT_MAX];

	fputs(header, f);
	for (int i = 0; i < RV_CFG_NKEYS; i++) {
		const struct rv_cfg_key *k = &rv_cfg_keys[i];
		int indent = k->sect ? 2 : 0;

		if (k->sect && (!sect || strcmp(sect, k->sect) != 0)) {
			int si = rv_cfg_find_section(k->sect, strlen(k->sect));

			fputc('\n', f);
			rv_cfg_write_doc(f, 0, rv_cfg_sections[si].doc, "");
			fprintf(f, "%s:\n", k->sect);
			sect = k->sect;
		} else {
			fputc('\n', f);
		}
		rv_cfg_range_text(k, range, sizeof(range));
		more[0] = '\0';
		if (range[0])
			snprintf(more, sizeof(more), "%s %s.",
				 k->type == K_ENUM ? "One of:" : "Range:", range);
		rv_cfg_write_doc(f, indent, k->doc, more);
		fprintf(f, "%*s%s: ", indent, "", k->name);
		rv_cfg_write_value(f, k, c);
		fputc('\n', f);
	}
	rv_cfg_write_actions(f, c);
	return ferror(f) ? -EIO : 0;
}
