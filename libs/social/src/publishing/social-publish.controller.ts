import { Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiFunctionRoute, OwnTransactions, StoreScoped, Body, Query } from '@app/core';
import { SocialPostsQueryDto, SocialPublishDto } from '../social.dto.js';
import { SocialPublishService } from './social-publish.service.js';
import { ApiPublishSocialPost, ApiCancelSocialPost, ApiListSocialPosts } from './social-publish.openapi.js';
import '../store-resources.js'; // registers the store resource its routes name (social_post) before they are declared

/** Publishing now, scheduling, cancelling, and the history. */
@ApiTags('social')
@ApiFunctionRoute()
@Controller('functions/v1')
export class SocialPublishController {
  constructor(private readonly posts: SocialPublishService) {}

  @Post('social-publish')
  @HttpCode(200)
  @OwnTransactions()
  @StoreScoped({ from: 'body', need: 'social' })
  @ApiPublishSocialPost()
  async publish(@Body() body: SocialPublishDto) {
    return this.posts.publish(body);
  }

  @Delete('social-publish/:post_id')
  @StoreScoped({ from: 'social_post', need: 'social' })
  @ApiCancelSocialPost()
  async cancel(@Param('post_id') postId: string) {
    await this.posts.cancel(postId);
    return { success: true, message: 'Scheduled post cancelled' };
  }

  @Get('social-posts')
  @StoreScoped({ from: 'query', need: 'social' })
  @ApiListSocialPosts()
  async list(@Query() query: SocialPostsQueryDto) {
    return { success: true, ...(await this.posts.list(query)) };
  }
}
