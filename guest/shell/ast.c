/* The syntax tree's lifetime: freeing a node and everything below it, the
 * reference count of a parsed command line that function definitions share,
 * and the lexical test of a name that the parser, the expander and the
 * builtins all make. Uses nothing of the shell but ast.h. */
#include <ctype.h>
#include <stdlib.h>

#include "ast.h"

static void free_words(sh_word *w)
{
    while (w) {
        sh_word *n = w->next;
        free(w->text);
        free(w);
        w = n;
    }
}

static void free_redirs(sh_redir *r)
{
    while (r) {
        sh_redir *n = r->next;
        free(r->target);
        free(r);
        r = n;
    }
}

void sh_node_free(sh_node *n)
{
    if (!n)
        return;
    free_words(n->words);
    free_words(n->assigns);
    free_redirs(n->redirs);
    free(n->name);
    sh_node_free(n->a);
    sh_node_free(n->b);
    sh_node_free(n->c);
    for (int i = 0; i < n->n_kids; i++)
        sh_node_free(n->kids[i]);
    free(n->kids);
    for (sh_case_item *it = n->items; it;) {
        sh_case_item *nx = it->next;
        free_words(it->patterns);
        sh_node_free(it->body);
        free(it);
        it = nx;
    }
    free(n);
}

void sh_tree_release(sh_tree *t)
{
    if (t && --t->refs == 0) {
        sh_node_free(t->root);
        free(t);
    }
}

int sh_is_name(const char *s, size_t n)
{
    if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return 0;
    return 1;
}
