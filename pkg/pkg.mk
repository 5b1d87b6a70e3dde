# Installing capsa. Included from the Makefile.
#   make install     the program, the libraries, the header, capsa.pc, the man pages,
#                    the bash completion and the licence files, under PREFIX
#                    (default /usr/local), below DESTDIR when set (a staging root)
#   make uninstall   removes what make install put there (the same variables)
#   make man         the man pages, $(BUILD)/man/capsa.1 and capsa.3, from
#                    docs/man/*.scd with scdoc
#   make deb         $(BUILD)/capsa_$(VERSION)_ARCH.deb, with dpkg-deb (pkg/deb.sh)
# Every file is put in place by a rename (pkg/install-file.sh), never rewritten in
# place: a process that has the old library loaded keeps it intact.

PREFIX       ?= /usr/local
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
MANDIR       ?= $(PREFIX)/share/man
DOCDIR       ?= $(PREFIX)/share/doc/capsa
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR  ?= $(PREFIX)/share/bash-completion/completions
# Run after installing into the system itself (no DESTDIR) as root, so that the
# dynamic linker's cache knows libcapsa.so.0; LDCONFIG=: skips it.
LDCONFIG     ?= ldconfig
SCDOC        ?= scdoc

PUT          := sh pkg/install-file.sh
MAN_PAGES    := $(BUILD)/man/capsa.1 $(BUILD)/man/capsa.3
DOC_FILES    := LICENSE NOTICE CHANGELOG.md
# The libraries installed as NAME.so.$(VERSION) (SONAME NAME.so.$(SOMAJOR)) with
# their links, and NAME.a: libcapsa, and libcapsa-net when the build has it as a
# shared library (the MCP code that the Python package loads). The static
# libcapsa-net.a alone is the capsa program's internals (net/ has no public
# header) and is not installed.
SHARED_LIBS   = libcapsa $(if $(wildcard $(BUILD)/libcapsa-net.so),libcapsa-net)

.PHONY: install uninstall man deb clean-pkg

clean: clean-pkg
clean-pkg:
	rm -rf $(BUILD)/man $(BUILD)/deb $(BUILD)/capsa.pc $(BUILD)/capsa_*.deb

# The pages' date is their source's last commit (the same bytes from every build
# of one commit), or today outside a git checkout.
$(BUILD)/man/%: docs/man/%.scd
	@mkdir -p $(BUILD)/man
	@command -v $(SCDOC) >/dev/null 2>&1 || \
		{ echo "scdoc is missing: install the Debian package scdoc (make deps installs it)" >&2; exit 1; }
	SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct -- $< 2>/dev/null | grep . || date +%s) \
		$(SCDOC) < $< > $@.tmp && mv -f $@.tmp $@

man: $(MAN_PAGES)

install: all man
	$(PUT) 755 $(BUILD)/capsa $(DESTDIR)$(BINDIR)/capsa
	@set -e; for lib in $(SHARED_LIBS); do \
	    echo "install $$lib.so.$(VERSION) $$lib.so.$(SOMAJOR) $$lib.so $$lib.a -> $(DESTDIR)$(LIBDIR)"; \
	    $(PUT) 755 $(BUILD)/$$lib.so $(DESTDIR)$(LIBDIR)/$$lib.so.$(VERSION); \
	    $(PUT) link $$lib.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$$lib.so.$(SOMAJOR); \
	    $(PUT) link $$lib.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/$$lib.so; \
	    $(PUT) 644 $(BUILD)/$$lib.a $(DESTDIR)$(LIBDIR)/$$lib.a; \
	done
	$(PUT) 644 include/capsa.h $(DESTDIR)$(INCLUDEDIR)/capsa.h
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|@LIBS_PRIVATE@|$(filter -l%,$(HOST_LIBS))|g' pkg/capsa.pc.in > $(BUILD)/capsa.pc
	$(PUT) 644 $(BUILD)/capsa.pc $(DESTDIR)$(PKGCONFIGDIR)/capsa.pc
	$(PUT) 644 $(BUILD)/man/capsa.1 $(DESTDIR)$(MANDIR)/man1/capsa.1
	$(PUT) 644 $(BUILD)/man/capsa.3 $(DESTDIR)$(MANDIR)/man3/capsa.3
	$(PUT) 644 pkg/capsa.bash $(DESTDIR)$(BASHCOMPDIR)/capsa
	@set -e; for f in $(DOC_FILES); do $(PUT) 644 $$f $(DESTDIR)$(DOCDIR)/$$f; done
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then $(LDCONFIG) || true; fi

# Also the libraries of other versions with the same major number (installed
# earlier, then replaced by a newer one), which nothing else would remove.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/capsa
	@set -e; for lib in libcapsa libcapsa-net; do \
	    rm -f $(DESTDIR)$(LIBDIR)/$$lib.so.$(SOMAJOR).* $(DESTDIR)$(LIBDIR)/$$lib.so.$(SOMAJOR) \
	        $(DESTDIR)$(LIBDIR)/$$lib.so $(DESTDIR)$(LIBDIR)/$$lib.a; \
	done
	rm -f $(DESTDIR)$(INCLUDEDIR)/capsa.h $(DESTDIR)$(PKGCONFIGDIR)/capsa.pc
	rm -f $(DESTDIR)$(MANDIR)/man1/capsa.1 $(DESTDIR)$(MANDIR)/man3/capsa.3
	rm -f $(DESTDIR)$(BASHCOMPDIR)/capsa
	rm -f $(DOC_FILES:%=$(DESTDIR)$(DOCDIR)/%)
	-rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then $(LDCONFIG) || true; fi

# The package is what make install puts under /usr (libraries in the multiarch
# directory, as Debian has them), staged in $(BUILD)/deb/root; pkg/deb.sh strips
# it, compresses the man pages, computes the dependencies and runs dpkg-deb. The
# inner make takes the build as this one left it (-o all, which make does not pass
# down by itself): it never rebuilds with other flags.
DEB_MULTIARCH = $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || $(CC) -print-multiarch)
deb: all man
	rm -rf $(BUILD)/deb
	@$(MAKE) --no-print-directory -o all install DESTDIR=$(abspath $(BUILD))/deb/root PREFIX=/usr \
	    LIBDIR=/usr/lib/$(DEB_MULTIARCH) LDCONFIG=:
	sh pkg/deb.sh $(BUILD)/deb/root $(VERSION) $(BUILD)
